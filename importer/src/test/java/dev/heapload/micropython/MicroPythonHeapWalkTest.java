package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The heap walk against what MicroPython itself printed at each dump moment, for all 8 real dumps. */
class MicroPythonHeapWalkTest {

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> dumps() {
        return MicroPythonCases.all().stream().map(x -> org.junit.jupiter.params.provider.Arguments.of(
            MicroPythonCases.CASES[x[0]], x[1]));
    }

    @ParameterizedTest(name = "{0} dump{1}")
    @MethodSource("dumps")
    void gcLinesEqualWhatMicroPythonPrinted(String name, int n) throws IOException {
        String[] printed = MicroPythonCases.printed(name, n);
        MicroPythonDump dump = MicroPythonCases.dump(name, n);
        assertEquals(printed[0], dump.heapMap().figures().gcLines());
    }

    @ParameterizedTest(name = "{0} dump{1}")
    @MethodSource("dumps")
    void heapMapIsByteIdenticalToThePrintedOne(String name, int n) throws IOException {
        String[] printed = MicroPythonCases.printed(name, n);
        MicroPythonDump dump = MicroPythonCases.dump(name, n);
        assertEquals(printed[1], dump.heapMap().text());
    }
}
