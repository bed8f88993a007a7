"""The patel study (docs/studies/patel-red-sfq-rem.md): RED, SFQ and REM on a 2-packet buffer.

Patel et al. compare RED, SFQ and REM on one bottleneck with a 4 KB buffer of
2 KB packets (two packets), two-way FTP traffic, 100 s. Table 2 and
Figures 5-7 are at 5 Mbps (Sections 3.1 and 3.3; `PAPER_RATE`), Figure 4
sweeps the bottleneck bandwidth. Every number below comes from the stored
runs; the paper's values appear only in the claims' wording.

The modules, as every study's: `setup` (the parts, cases, their names and the
paper's constants), `tables` (per-run metrics, the tables and the sentences
the captions and claims share), `figures`, `claims`, and `study` (STUDY).
"""

from ccsim.studies.patel.study import STUDY

__all__ = ["STUDY"]
