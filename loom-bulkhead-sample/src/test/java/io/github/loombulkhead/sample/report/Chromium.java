package io.github.loombulkhead.sample.report;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium from the Debian packages {@code chromium} and {@code chromium-driver} (the CI script
 * installs them), driven through Selenium with an explicit driver so nothing is downloaded.
 */
public final class Chromium implements AutoCloseable {

    private final ChromeDriver driver;

    private Chromium(ChromeDriver driver) {
        this.driver = driver;
    }

    /** Starts a fresh headless browser whose profile lives in {@code userDataDir}. */
    public static Chromium start(Path userDataDir) {
        File browser = executable("chromium", "/usr/bin/chromium", "/usr/lib/chromium/chromium");
        File chromedriver = executable("chromedriver", "/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver)
            .usingAnyFreePort()
            .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(browser);
        options.addArguments(args(userDataDir));
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60)).scriptTimeout(Duration.ofSeconds(30));
        return new Chromium(driver);
    }

    /** The flags the browser runs with: headless, no sandbox, no GPU, nothing that reaches the network. */
    public static List<String> args(Path userDataDir) {
        return List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--window-size=1400,1800", "--user-data-dir=" + userDataDir.toAbsolutePath());
    }

    public ChromeDriver driver() {
        return this.driver;
    }

    @Override
    public void close() {
        this.driver.quit();
    }

    private static File executable(String name, String... candidates) {
        return Stream.of(candidates)
            .map(Path::of)
            .filter(Files::isExecutable)
            .findFirst()
            .map(Path::toFile)
            .orElseThrow(() -> new IllegalStateException("The report test needs headless " + name + " (looked at "
                    + String.join(", ", candidates) + "); install it with: apt-get install -y chromium chromium-driver"));
    }
}
