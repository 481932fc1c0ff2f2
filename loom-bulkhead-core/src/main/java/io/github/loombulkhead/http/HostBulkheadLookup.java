package io.github.loombulkhead.http;

import java.net.IDN;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;

import org.springframework.http.HttpRequest;
import org.springframework.web.util.InvalidUrlException;
import org.springframework.web.util.UriComponents;
import org.springframework.web.util.UriComponentsBuilder;
import org.springframework.web.util.UriComponentsBuilder.ParserType;
import org.springframework.web.util.UriUtils;

/**
 * One bulkhead per target {@code scheme://host:port}, created lazily, at most {@code maxHosts} of them; each host
 * counts once however it is spelled.
 */
final class HostBulkheadLookup implements Function<HttpRequest, Bulkhead> {

    private final BulkheadRegistry registry;

    private final String namePrefix;

    private final Function<String, BulkheadConfig> configs;

    private final int maxHosts;

    private final Map<String, Bulkhead> byTarget = new ConcurrentHashMap<>();

    private final ReentrantLock creation = new ReentrantLock();

    HostBulkheadLookup(BulkheadRegistry registry, String namePrefix, Function<String, BulkheadConfig> configs,
            int maxHosts) {
        this.registry = Objects.requireNonNull(registry, "registry must not be null");
        this.namePrefix = Objects.requireNonNull(namePrefix, "namePrefix must not be null");
        this.configs = Objects.requireNonNull(configs, "configs must not be null");
        if (maxHosts < 1) {
            throw new IllegalArgumentException("maxHosts must be at least 1 but was " + maxHosts);
        }
        this.maxHosts = maxHosts;
    }

    @Override
    public Bulkhead apply(HttpRequest request) {
        String target = target(request.getURI());
        Bulkhead bulkhead = this.byTarget.get(target);
        if (bulkhead != null) {
            return bulkhead;
        }
        this.creation.lock();
        try {
            bulkhead = this.byTarget.get(target);
            if (bulkhead == null) {
                if (this.byTarget.size() >= this.maxHosts) {
                    throw new TooManyHostsException(this.namePrefix, target, this.maxHosts);
                }
                String name = this.namePrefix + target;
                BulkheadConfig config = this.configs.apply(name);
                bulkhead = (config != null) ? this.registry.bulkhead(name, config) : this.registry.bulkhead(name);
                this.byTarget.put(target, bulkhead);
            }
            return bulkhead;
        }
        finally {
            this.creation.unlock();
        }
    }

    /**
     * {@code scheme://host:port} with the scheme's default port filled in and one spelling per host: lower case,
     * internationalized names in their ASCII (punycode) form, no trailing dot, IPv6 addresses in their
     * canonical text form (RFC 5952). Host names {@link URI#getHost()} cannot parse, such as names with
     * underscores, are read from the authority.
     */
    static String target(URI uri) {
        String scheme = uri.getScheme();
        String host = uri.getHost();
        int port = uri.getPort();
        if (scheme != null && host == null && uri.getRawAuthority() != null) {
            UriComponents parsed = parseAuthority(uri);
            host = parsed.getHost();
            port = parsed.getPort();
        }
        if (scheme == null || host == null || host.isEmpty()) {
            throw new IllegalArgumentException("Per-host bulkhead needs an absolute URI with a host but got '" + uri
                    + "'; set a base URL on the client");
        }
        scheme = scheme.toLowerCase(Locale.ROOT);
        if (port == -1) {
            port = switch (scheme) {
                case "http", "ws" -> 80;
                case "https", "wss" -> 443;
                default -> -1;
            };
        }
        return scheme + "://" + canonicalHost(host, uri) + ((port != -1) ? ":" + port : "");
    }

    private static UriComponents parseAuthority(URI uri) {
        try {
            return UriComponentsBuilder.fromUriString(uri.toASCIIString(), ParserType.RFC).build();
        }
        catch (InvalidUrlException ex) {
            throw new IllegalArgumentException("Per-host bulkhead cannot read the host of '" + uri + "': "
                    + ex.getMessage(), ex);
        }
    }

    private static String canonicalHost(String host, URI uri) {
        if (host.startsWith("[")) {
            return canonicalIpv6(host, uri);
        }
        try {
            String name = UriUtils.decode(host, StandardCharsets.UTF_8);
            name = (name.endsWith(".") && name.length() > 1) ? name.substring(0, name.length() - 1) : name;
            return IDN.toASCII(name, IDN.ALLOW_UNASSIGNED).toLowerCase(Locale.ROOT);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("Per-host bulkhead cannot read the host '" + host + "' of '" + uri
                    + "' as a domain name: " + ex.getMessage(), ex);
        }
    }

    /** {@code [address]} with any zone as written in the URI; parsing a bracketed literal never looks up a name. */
    private static String canonicalIpv6(String host, URI uri) {
        int end = host.indexOf(']');
        int zone = host.indexOf('%');
        String literal = host.substring(1, (zone != -1 && zone < end) ? zone : end);
        InetAddress address;
        try {
            address = InetAddress.getByName("[" + literal + "]");
        }
        catch (UnknownHostException ex) {
            throw new IllegalArgumentException("Per-host bulkhead cannot read the IPv6 address '" + host + "' of '"
                    + uri + "': " + ex.getMessage(), ex);
        }
        if (address instanceof Inet4Address) {
            // An IPv4-mapped address is the IPv4 host.
            return address.getHostAddress();
        }
        return "[" + rfc5952(address.getAddress()) + ((zone != -1 && zone < end) ? host.substring(zone, end) : "")
                + "]";
    }

    /** Lower-case groups without leading zeros, the longest run of two or more zero groups as {@code ::}. */
    private static String rfc5952(byte[] bytes) {
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8;) {
            int length = 0;
            while (i + length < 8 && groups[i + length] == 0) {
                length++;
            }
            if (length > bestLength) {
                bestStart = i;
                bestLength = length;
            }
            i += Math.max(length, 1);
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }
}
