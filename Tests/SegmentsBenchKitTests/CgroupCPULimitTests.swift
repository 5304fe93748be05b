import Foundation
import XCTest

@testable import SegmentsBenchKit

final class CgroupCPULimitTests: XCTestCase {
    /// A fake filesystem root per test: `/proc/self/cgroup` and `/sys/fs/cgroup/…` as a
    /// container's kernel shows them.
    private var root = ""

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cgroup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func write(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: root + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func testCPUMaxQuotaOverPeriod() throws {
        XCTAssertEqual(try CgroupCPULimit.parseCPUMax("150000 100000\n"), 1.5)
        XCTAssertEqual(try CgroupCPULimit.parseCPUMax("200000 100000"), 2)
    }

    func testCPUMaxUnlimited() throws {
        XCTAssertNil(try CgroupCPULimit.parseCPUMax("max 100000\n"))
    }

    func testCPUMaxMalformedIsATypedError() {
        for text in ["", "max", "150000", "abc 100000", "0 100000", "-5 100000", "150000 0", "1 2 3"] {
            XCTAssertThrowsError(try CgroupCPULimit.parseCPUMax(text), "'\(text)'") { error in
                XCTAssertTrue(error is CgroupCPULimit.ParseError, "'\(text)': \(error)")
            }
        }
    }

    func testCFSQuota() throws {
        XCTAssertEqual(try CgroupCPULimit.parseCFS(quota: "50000\n", period: "100000\n"), 0.5)
        XCTAssertNil(try CgroupCPULimit.parseCFS(quota: "-1\n", period: "100000\n"))
        XCTAssertThrowsError(try CgroupCPULimit.parseCFS(quota: "lots", period: "100000"))
        XCTAssertThrowsError(try CgroupCPULimit.parseCFS(quota: "50000", period: "0"))
        XCTAssertThrowsError(try CgroupCPULimit.parseCFS(quota: "-2", period: "100000"))
    }

    func testProcSelfCgroupLines() {
        let hybrid = "4:memory:/pod/abc\n2:cpuacct:/\n1:cpu,cpuacct:/kubepods/pod1/c1\n0::/kubepods/pod1/c1\n"
        let parsed = CgroupCPULimit.parseProcSelfCgroup(hybrid)
        XCTAssertEqual(parsed.unified, "/kubepods/pod1/c1")
        XCTAssertEqual(parsed.cpuController, "/kubepods/pod1/c1")
        XCTAssertNil(CgroupCPULimit.parseProcSelfCgroup("2:cpuacct:/x\n").cpuController, "cpuacct is not cpu")
    }

    /// cgroup v2 in a container: the namespaced view shows the container's own limit at the root.
    func testV2ContainerRoot() throws {
        try write("0::/\n", to: "/proc/self/cgroup")
        try write("cpu memory\n", to: "/sys/fs/cgroup/cgroup.controllers")
        try write("200000 100000\n", to: "/sys/fs/cgroup/cpu.max")
        XCTAssertEqual(CgroupCPULimit.read(root: root), 2)
    }

    /// cgroup v2 on a host: the process's own cgroup and its ancestors; the tightest one binds.
    func testV2NestedTightestWins() throws {
        try write("0::/kubepods/pod1/c1\n", to: "/proc/self/cgroup")
        try write("cpu memory\n", to: "/sys/fs/cgroup/cgroup.controllers")
        try write("max 100000\n", to: "/sys/fs/cgroup/kubepods/pod1/c1/cpu.max")
        try write("150000 100000\n", to: "/sys/fs/cgroup/kubepods/pod1/cpu.max")
        try write("800000 100000\n", to: "/sys/fs/cgroup/kubepods/cpu.max")
        XCTAssertEqual(CgroupCPULimit.read(root: root), 1.5)
    }

    func testV2Unlimited() throws {
        try write("0::/\n", to: "/proc/self/cgroup")
        try write("cpu\n", to: "/sys/fs/cgroup/cgroup.controllers")
        try write("max 100000\n", to: "/sys/fs/cgroup/cpu.max")
        XCTAssertNil(CgroupCPULimit.read(root: root))
    }

    /// A malformed file is skipped (no limit from it), not a crash.
    func testV2MalformedIsIgnored() throws {
        try write("0::/\n", to: "/proc/self/cgroup")
        try write("cpu\n", to: "/sys/fs/cgroup/cgroup.controllers")
        try write("lots of cpu\n", to: "/sys/fs/cgroup/cpu.max")
        XCTAssertNil(CgroupCPULimit.read(root: root))
    }

    /// cgroup v1 (`cpu,cpuacct` controller), quota and period.
    func testV1Fallback() throws {
        try write("3:cpu,cpuacct:/docker/abc\n", to: "/proc/self/cgroup")
        try write("250000\n", to: "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us")
        try write("100000\n", to: "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us")
        try write("-1\n", to: "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us")
        try write("100000\n", to: "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us")
        XCTAssertEqual(CgroupCPULimit.read(root: root), 2.5)
    }

    func testV1UnlimitedAndNoCgroupFilesystem() throws {
        XCTAssertNil(CgroupCPULimit.read(root: root), "no cgroup filesystem at all")
        try write("1:cpu:/\n", to: "/proc/self/cgroup")
        try write("-1\n", to: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
        try write("100000\n", to: "/sys/fs/cgroup/cpu/cpu.cfs_period_us")
        XCTAssertNil(CgroupCPULimit.read(root: root))
    }

    func testEffectiveCoresTakesTheLowerRoundedUp() {
        XCTAssertEqual(CgroupCPULimit.effectiveCores(host: 64, limit: 1.5), 2)
        XCTAssertEqual(CgroupCPULimit.effectiveCores(host: 64, limit: 0.25), 1)
        XCTAssertEqual(CgroupCPULimit.effectiveCores(host: 2, limit: 8), 2)
        XCTAssertEqual(CgroupCPULimit.effectiveCores(host: 4, limit: nil), 4)
    }
}
