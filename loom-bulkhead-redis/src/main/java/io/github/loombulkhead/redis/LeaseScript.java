package io.github.loombulkhead.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script of the lease keys, read once from the class path, with its SHA-1 for {@code EVALSHA}. The scripts that
 * read the limit start with {@code lease-keys.lua}, the functions they share.
 * @param name the resource's name next to this class
 * @param text the script
 * @param sha1 the script's SHA-1, lower-case hex, as Redis names it
 * @param list whether it returns a list ({@code true}) or an integer
 */
record LeaseScript(String name, String text, String sha1, boolean list) {

    private static final String SHARED = "lease-keys.lua";

    static final LeaseScript SYNC = load("sync.lua", true, true);

    static final LeaseScript INIT = load("init.lua", false, true);

    static final LeaseScript CHANGE_LIMIT = load("change-limit.lua", false, false);

    private static LeaseScript load(String name, boolean list, boolean shared) {
        try {
            String text = (shared ? read(SHARED) : "") + read(name);
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return new LeaseScript(name, text, HexFormat.of().formatHex(digest), list);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot read script " + name, ex);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", ex);
        }
    }

    private static String read(String name) throws IOException {
        try (InputStream in = LeaseScript.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing script " + name + " next to " + LeaseScript.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
