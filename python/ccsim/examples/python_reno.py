"""Reno congestion control in Python: the built-in `reno`'s window (RFC 5681 section 3.1), as a ccsim.CongestionControl.

Slow start adds one segment per ACK of new data (eq. 2), congestion
avoidance 1/cwnd (eq. 3); a loss sets ssthresh = max(FlightSize / 2, 2)
(eq. 4) and a timeout restarts from one segment. The same arithmetic as
crates/ccsim-core/src/cc/reno.rs and cc/mod.rs's `Window`, so a scenario gives
identical results with either (docs/extending.md). Loss recovery (which
segment to resend) is the TCP sender's: give the flow group
`recovery = "reno"` to match `cc = "reno"`. Named as `cc = "python:python_reno.Reno"`.
"""

import ccsim


class Reno(ccsim.CongestionControl):
    def on_ack(self, now: int, ack: ccsim.AckInfo) -> None:
        if not ack.may_raise_cwnd():
            return
        if self.cwnd < self.ssthresh:
            self.cwnd += 1.0  # slow start
        else:
            self.cwnd += 1.0 / self.cwnd  # congestion avoidance

    def on_congestion_event(self, ev: ccsim.CongestionEvent) -> None:
        half = ev.flight / 2.0
        self.ssthresh = max(ev.whole(half), 2.0)
        if ev.collapse:  # Tahoe
            self.cwnd = 1.0
        elif ev.int_ssthresh:  # ns-2: cwnd = halfwin, not rounded
            self.cwnd = max(half, 1.0)
        else:
            self.cwnd = self.ssthresh

    def on_rto(self, ev: ccsim.CongestionEvent) -> None:
        if not ev.repeated:
            self.ssthresh = max(ev.whole(ev.flight / 2.0), 2.0)
        self.cwnd = 1.0

    def deflate(self, segments: float) -> None:
        self.cwnd = max(self.cwnd - segments, 1.0)
