"""Service contracts: a scoring service held to everything its published contract promises.

``spec`` loads a contract kept as data (built in: ``chrf-plus-plus-compute@1.0.0``, the seed's);
``definition`` computes the metric the contract words, exactly (pure); ``promises`` lists what
is checked, one family each; ``probes`` builds the requests; ``checks`` sends them through the
HTTP adapter's client and judges the answers (``check_service``; ``state``: the state promises;
``conformance``: the findings and the table).  See docs/http.md.
"""

from .spec import Contract, builtin_names, load

__all__ = ["Contract", "load", "builtin_names"]
