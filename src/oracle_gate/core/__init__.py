"""The policy core, with no Pants import (tested directly with Hypothesis), read as the ladder and
the lanes: `classes` (oracle classes, region kinds, floors); `lanes/` (base versus head: what a diff
changed and what each region owes); `ladder/` (the ranks' checks that need no process); `judge/`
(the verdict and its renderings); `protocol/` (what the pytest sandbox and the gate share, shipped
verbatim into the sandbox); `source/` (Python source as data). Modules import each other
relatively, so the sandbox's copy of `protocol/` works under any package name.
"""
