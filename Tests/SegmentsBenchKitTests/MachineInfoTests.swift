import XCTest

@testable import SegmentsBenchKit

final class MachineInfoTests: XCTestCase {
    /// Two processors of a VM that names its CPU generically: the description comes from the first
    /// block and carries the generation (family, model, stepping), which the name alone does not.
    func testDescriptionNamesFamilyModelAndStepping() {
        let cpuinfo = """
            processor\t: 0
            vendor_id\t: AuthenticAMD
            cpu family\t: 26
            model\t\t: 2
            model name\t: AMD EPYC
            stepping\t: 1
            flags\t\t: fpu vme

            processor\t: 1
            vendor_id\t: AuthenticAMD
            cpu family\t: 25
            model\t\t: 17
            model name\t: Other CPU
            stepping\t: 0

            """
        XCTAssertEqual(MachineInfo.cpuDescription(fromCPUInfo: cpuinfo), "AMD EPYC (family 26, model 2, stepping 1)")
    }

    /// `model name`, listed before `model`, is not mistaken for it (the keys are matched whole).
    func testModelIsNotReadFromModelName() {
        let cpuinfo = "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nmodel\t\t: 85\ncpu family\t: 6\n"
        XCTAssertEqual(MachineInfo.cpuDescription(fromCPUInfo: cpuinfo), "Intel(R) Xeon(R) CPU @ 2.20GHz (family 6, model 85)")
    }

    /// Where the system gives a name and nothing else, the name stands alone;
    /// without a name the CPU is `unknown`, not an empty cell in the report.
    func testNameAloneAndNoName() {
        XCTAssertEqual(MachineInfo.cpuDescription(fromCPUInfo: "model name\t: Some CPU\n"), "Some CPU")
        XCTAssertEqual(MachineInfo.cpuDescription(fromCPUInfo: "processor\t: 0\nBogoMIPS\t: 50.00\n"), "unknown")
        XCTAssertEqual(MachineInfo.cpuDescription(fromCPUInfo: ""), "unknown")
    }
}

/// How the harness starts jemalloc for exact allocation counts.
final class JemallocRuntimeTests: XCTestCase {
    /// A `MALLOC_CONF` of the caller's own is kept, with the thread caches turned off after it
    /// (jemalloc reads the options in order): only setting it when unset left them on.
    func testTheThreadCachesAreTurnedOffAfterTheCallersOwnOptions() {
        XCTAssertEqual(JemallocRuntime.mallocConfiguration(adding: nil), "tcache:false")
        XCTAssertEqual(JemallocRuntime.mallocConfiguration(adding: ""), "tcache:false")
        XCTAssertEqual(JemallocRuntime.mallocConfiguration(adding: "narenas:2"), "narenas:2,tcache:false")
        XCTAssertEqual(JemallocRuntime.mallocConfiguration(adding: "tcache:true"), "tcache:true,tcache:false")
    }
}
