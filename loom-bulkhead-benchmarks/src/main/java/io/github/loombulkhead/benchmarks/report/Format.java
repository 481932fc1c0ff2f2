package io.github.loombulkhead.benchmarks.report;

import java.util.Locale;

/** Number formatting for the tables: a few significant digits, thousands separators, explicit "n/a". */
final class Format {

    private Format() {
    }

    static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "n/a";
        }
        double magnitude = Math.abs(value);
        String pattern = (magnitude >= 100) ? "%,.0f" : (magnitude >= 10) ? "%,.1f" : (magnitude >= 1) ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, pattern, value);
    }

    static String withError(double score, double error) {
        return number(score) + " ± " + (Double.isNaN(error) ? "n/a" : number(error));
    }

    static String ratio(double ratio) {
        return (Double.isNaN(ratio) || Double.isInfinite(ratio)) ? "n/a" : String.format(Locale.ROOT, "%.2f×", ratio);
    }

    static String percent(double fraction) {
        return (Double.isNaN(fraction) || Double.isInfinite(fraction)) ? "n/a"
                : String.format(Locale.ROOT, "%+.1f %%", fraction * 100);
    }
}
