"""The named families of chrF bugs: stable kebab-case ids and one-sentence explanations.

Derived from the deviation registry (``audit.diagnose.deviations``), where each family's model,
trigger inputs, sweep and upstream root-cause patterns live too.  Ids are stable:
baselines, JSON reports and the pytest plugin key on them.
"""

from __future__ import annotations

from .deviations import titles

FAMILIES: dict[str, str] = titles()

#: Observation keys of divergences no model explains carry a behavioural signature after the
#: family id ("unexplained", "~digits"); the signature is not a family.
SIGNATURE_PREFIX = "~"


def title(family: str) -> str:
    return FAMILIES.get(family, family)


def key_families(key) -> list[str]:
    """The family ids of an observation key (its signature elements dropped)."""
    return [k for k in key if not k.startswith(SIGNATURE_PREFIX)]
