"""Packet traces read by the tools researchers use: an ns-2 awk script and a pcap library (dpkt).

The ns-2 trace is parsed by a throughput/drop awk script of the kind the
seeds' papers run on ns-2 traces (fields: $1 event, $2 time, $3 from node,
$4 to node, $5 type, $6 size, $8 flow id); its numbers must equal ccsim's own
metrics exactly (same events, counted twice). The pcap files are read back
with dpkt: packet counts, TCP byte sequence numbers and ACK numbers must
match the flow's counters.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tomllib
from pathlib import Path

import dpkt
import pytest
from scenarios import compact_dumbbell

import ccsim
from ccsim import cli
from ccsim.cli import main

# Node numbers of a 2-pair dumbbell (docs/plots.md): s0 s1 r1 r2 d0 d1.
NODES = {"s0": 0, "s1": 1, "r1": 2, "r2": 3, "d0": 4, "d1": 5}

# Per flow id: bytes of packets of type TYPE received at node DST (the
# flow's receiver), data packets dropped anywhere; and all drops.
AWK = r"""
$1 == "r" && $4 == dst && $5 != "ack" { bytes[$8] += $6 }
$1 == "d" { drops++; if ($5 != "ack") lost[$8]++ }
$1 == "+" { arrivals[$3 "->" $4]++ }
END {
    for (f in bytes) printf "bytes %s %d\n", f, bytes[f]
    for (f in lost) printf "lost %s %d\n", f, lost[f]
    for (l in arrivals) printf "arrivals %s %d\n", l, arrivals[l]
    printf "drops %d\n", drops
    printf "throughput_bps %.6f\n", total_bytes(bytes) * 8 / duration
}
function total_bytes(b,   f, s) { s = 0; for (f in b) s += b[f]; return s }
"""

SCENARIO = (
    """
name = "traced"
duration = "3s"
seed = 11
"""
    + compact_dumbbell("3Mbps", "15ms", '{ kind = "droptail", limit = 12 }')
    + """[[flows]]
group = "bulk"
src = "s0"
dst = "d0"
transport = "tcp"
app = "bulk"
[[flows]]
group = "cbr"
src = "s1"
dst = "d1"
transport = "udp"
app = "cbr"
rate = "1Mbps"
packet_size = 500
[output]
trace = "ns2"
"""
)


@pytest.fixture(scope="module")
def awk() -> str:
    path = shutil.which("awk")
    if path is None:
        pytest.skip("no awk on this machine")
    return path


def run_awk(awk: str, script: str, trace: Path, **variables: object) -> dict[str, str]:
    args = [awk]
    for k, v in variables.items():
        args += ["-v", f"{k}={v}"]
    out = subprocess.run([*args, script, str(trace)], capture_output=True, text=True, check=True, timeout=60).stdout
    result = {}
    for line in out.splitlines():
        *key, value = line.split()
        result[" ".join(key)] = value
    return result


def test_an_ns2_awk_script_gets_ccsims_throughput_and_drops(tmp_path: Path, awk: str) -> None:
    r = ccsim.run(tomllib.loads(SCENARIO), trace_dir=tmp_path)
    trace = tmp_path / "trace.tr"
    assert trace.stat().st_size > 0
    flows = r.flows.set_index("name")
    # Each flow's receiver: throughput counts data bytes arriving at the destination.
    for fid, name in enumerate(flows.index):
        dst = NODES[flows.loc[name, "dst"]]
        got = run_awk(awk, AWK, trace, dst=dst, duration=3)
        assert int(got[f"bytes {fid}"]) * 8 / 3 == pytest.approx(flows.loc[name, "throughput_bps"], rel=0, abs=1e-6)
        assert int(got.get(f"lost {fid}", "0")) == flows.loc[name, "lost_packets"]
    got = run_awk(awk, AWK, trace, dst=-1, duration=3)
    queues = r.queues.set_index("link")
    assert int(got["drops"]) == queues["drops"].sum() + r.links["lost_packets"].sum()
    assert int(got["drops"]) > 0, "the bottleneck must drop for the test to mean anything"
    for link, q in queues.iterrows():
        a, b = str(link).split("->")
        assert int(got.get(f"arrivals {NODES[a]}->{NODES[b]}", "0")) == q["arrivals"], link
    # The summary's throughput: all flows' data bytes at their receivers.
    total = sum(
        int(run_awk(awk, AWK, trace, dst=NODES[d], duration=3)[f"bytes {i}"]) for i, d in enumerate(flows["dst"])
    )
    assert total * 8 / 3 == pytest.approx(r.summary["throughput_bps"], rel=0, abs=1e-6)


FINITE = """
name = "pcap"
duration = "6s"
seed = 2
[topology]
kind = "dumbbell"
pairs = 1
[topology.access]
rate = "50Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "2Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = 8 }
[[flows]]
transport = "tcp"
app = "finite"
size = 300
sack = true
mss = 1000
[output]
trace = "pcap"
"""


def read_pcap(path: Path) -> list[tuple[float, dpkt.ip.IP]]:
    with path.open("rb") as f:
        reader = dpkt.pcap.Reader(f)
        assert reader.datalink() == dpkt.pcap.DLT_RAW or reader.datalink() == 101
        return [(ts, dpkt.ip.IP(buf)) for ts, buf in reader]


def test_pcap_read_back_with_dpkt_matches_the_flow(tmp_path: Path) -> None:
    r = ccsim.run(tomllib.loads(FINITE), trace_dir=tmp_path)
    f = r.flows.iloc[0]
    assert f["fct_s"] == f["fct_s"], "the transfer completes inside the run"
    assert f["retransmits"] > 0, "an 8-packet buffer must cost the transfer some losses"
    data = read_pcap(tmp_path / "s0-r1.pcap")
    acks = read_pcap(tmp_path / "d0-r2.pcap")
    # Every data packet the sender sent crossed s0->r1 (the transfer ended long before the run).
    assert len(data) == f["sent_packets"]
    assert len(acks) == f["acks_sent"]
    src, dst = socket.inet_aton("10.0.0.1"), socket.inet_aton("10.0.0.4")  # s0 = node 0, d0 = node 3
    seqs = []
    for ts, ip in data:
        assert (ip.src, ip.dst, ip.p) == (src, dst, dpkt.ip.IP_PROTO_TCP)
        assert ip.len == 1040  # 1000 bytes of payload + 40 of headers: ccsim's wire size
        tcp = ip.data
        assert (tcp.sport, tcp.dport) == (1024, 1024)
        seqs.append(tcp.seq)
        assert 0 <= ts <= 6
    # Byte sequence numbers: segment k starts at k * MSS; 300 segments, each sent at least once.
    assert sorted(set(seqs)) == [k * 1000 for k in range(300)]
    assert len(seqs) - 300 == f["retransmits"]
    # ACK numbers: the cumulative ACK in bytes; the last one acknowledges the whole transfer.
    ack_numbers = [ip.data.ack for _, ip in acks]
    assert max(ack_numbers) == 300 * 1000 == f["delivered_bytes"]
    assert all(ip.data.flags & dpkt.tcp.TH_ACK for _, ip in acks)
    sacked = [ip for _, ip in acks if any(o == dpkt.tcp.TCP_OPT_SACK for o, _ in dpkt.tcp.parse_opts(ip.data.opts))]
    assert sacked, "losses with SACK on give ACKs with SACK blocks"
    # The bottleneck capture holds exactly the transmissions ccsim counted on r1->r2.
    links = r.links.set_index("link")
    assert len(read_pcap(tmp_path / "r1-r2.pcap")) == links.loc["r1->r2", "tx_packets"]


def test_cli_writes_the_trace_into_the_results_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "t.toml"
    scenario.write_text(SCENARIO.replace('duration = "3s"', 'duration = "0.5s"'))
    monkeypatch.chdir(tmp_path)
    # No --out: the results and the trace both go to results/<name>/.
    assert main(["run", str(scenario), "--quiet"]) == 0
    assert (tmp_path / "results" / "traced" / "trace.tr").stat().st_size > 0
    assert (tmp_path / "results" / "traced" / "summary.json").exists()
    # --out DIR: the trace goes to DIR.
    assert main(["run", str(scenario), "--quiet", "--out", "elsewhere"]) == 0
    assert (tmp_path / "elsewhere" / "trace.tr").stat().st_size > 0
    # A folder that cannot be created is a clear error, before anything is written.
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["run", str(scenario), "--out", str(blocker / "out")]) == 2
    assert capsys.readouterr().err == f"error: cannot create the trace folder {blocker / 'out'}: Not a directory\n"


WEB_THEN_BULK = """
name = "mss"
duration = "4s"
seed = 3
[topology]
kind = "dumbbell"
pairs = 2
[topology.access]
rate = "50Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = 50 }
[[flows]]
transport = "tcp"
app = "web"
arrival_rate = 50
size = 4
stop = "0.2s"
[[flows]]
transport = "tcp"
app = "finite"
size = 50
mss = 500
[output]
trace = "pcap"
"""


def test_pcap_sequence_numbers_use_each_flows_own_mss(tmp_path: Path) -> None:
    """A `web` group without `count` makes a flow per arrival: the later group's flows still get their own MSS.

    (The trace's per-flow MSS used to be laid out by the groups' `count`,
    shifting every flow after a web group onto a neighbour's MSS.)
    """
    r = ccsim.run(tomllib.loads(WEB_THEN_BULK), trace_dir=tmp_path)
    finite = r.flows[r.flows["app"] == "finite"].iloc[0]
    assert finite["delivered_bytes"] == 50 * 500
    # Its segments are the capture's 540-byte packets (500 of payload); the web flows' are 1500 bytes.
    sent = read_pcap(tmp_path / f"{finite['src']}-r1.pcap")
    seqs = sorted({ip.data.seq for _, ip in sent if ip.len == 540})
    assert seqs == [k * 500 for k in range(50)]
    assert (r.flows["app"] == "web").sum() > 1, "the web group (no count) makes several flows"


@pytest.mark.parametrize("fmt", ["ns2", "pcap"])
def test_the_trace_size_estimate_is_close_to_the_files_written(tmp_path: Path, fmt: str) -> None:
    # A saturating TCP flow and a CBR flow: the estimate (max-min fair rates, docs/plots.md) is an
    # upper bound of the right order, not a guess off by a factor of the number of links.
    scenario = tomllib.loads(SCENARIO.replace('trace = "ns2"', f'trace = "{fmt}"'))
    estimate = ccsim.trace_estimate(scenario)
    assert estimate is not None
    assert estimate[0] == fmt
    ccsim.run(scenario, trace_dir=tmp_path)
    written = sum(p.stat().st_size for p in tmp_path.iterdir())
    assert 0.8 * written < estimate[2] < 2.0 * written, (estimate, written)


def test_no_trace_no_estimate() -> None:
    assert ccsim.trace_estimate(tomllib.loads(SCENARIO.replace('trace = "ns2"', 'trace = "none"'))) is None


def test_a_trace_over_the_limit_needs_allow_large(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 3 Mbit/s for 10^5 s: tens of GB. Refused before anything runs or is written.
    scenario = tmp_path / "long.toml"
    scenario.write_text(SCENARIO.replace('duration = "3s"', 'duration = "100000s"'))
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {scenario}: output.trace: the ns2 trace would take about ")
    assert "over the 1 GB limit: add --allow-large" in err
    assert err.count("\n") == 1
    assert not out.exists()
    # trace_links can bring it under the limit: only the CBR flow's access link, 1 Mbit/s of 500-byte packets.
    scenario.write_text(
        SCENARIO.replace('duration = "3s"', 'duration = "1000s"').replace(
            'trace = "ns2"', 'trace = "ns2"\ntrace_links = ["s1->r1"]'
        )
    )
    estimate = ccsim.trace_estimate(scenario)
    assert estimate is not None
    assert estimate[2] < 1e9


def test_allow_large_writes_a_trace_over_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # With the limit lowered to 1 kB, the 0.5 s trace is over it: refused, then written with --allow-large.
    monkeypatch.setattr(cli, "MAX_TRACE_BYTES", 1000)
    scenario = tmp_path / "t.toml"
    scenario.write_text(SCENARIO.replace('duration = "3s"', 'duration = "0.5s"'))
    assert main(["run", str(scenario), "--quiet", "--out", str(tmp_path / "a")]) == 2
    assert main(["run", str(scenario), "--quiet", "--out", str(tmp_path / "b"), "--allow-large"]) == 0
    assert (tmp_path / "b" / "trace.tr").stat().st_size > 1000
