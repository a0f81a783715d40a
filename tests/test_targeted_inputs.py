"""A family's held-out inputs discriminate it from the definition (issue 34 probe b: making
every input of the trigger pool count, ``> self.tolerance`` -> ``>= 0`` in
``Classifier.targeted_inputs``, left every test green)."""
from dataclasses import replace

import pytest

from audit.diagnose import deviations
from audit.diagnose.classify import PER_FAMILY, Classifier
from audit.diagnose.deviations.triggers import pool
from audit.diagnose.models import predict
from audit.diagnose.variants import ScoreVariant, TextVariant
from reference_impl import ChrfParams

PARAMS = ChrfParams()
#: the claimed model (issue 30 moved the choice to ``audit.diagnose.judge``, whose rule is
#: ``judge.differs``; ``classify._CLAIMED`` is gone)
_CLAIMED = (TextVariant(), ScoreVariant())


def _variant(family):
    dev = deviations.get(family)
    name, value = dev.models[0]
    if dev.stage == "score":
        return _CLAIMED[0], replace(_CLAIMED[1], **{name: value})
    return replace(_CLAIMED[0], **{name: value}), _CLAIMED[1]


# families whose trigger pools hold inputs on which the family's model and the definition agree
@pytest.mark.parametrize("family, level", [("whitespace-set-white-space", "sentence"),
                                           ("format-characters-deleted", "corpus"),
                                           ("hypothesis-ngrams-where-reference-has-none", "corpus")])
def test_targeted_inputs_are_only_those_on_which_the_family_differs_from_the_definition(family, level):
    variant = _variant(family)
    pooled = pool(family, PARAMS, level, 2)
    inert = [s for s in pooled if predict(s, PARAMS, level, variant) == predict(s, PARAMS, level, _CLAIMED)]
    assert inert and len(inert) < len(pooled)  # the pool has both kinds: the rule has work to do
    chosen = Classifier(1e-9).targeted_inputs([family], PARAMS, level, 2, variant)
    assert 0 < len(chosen) <= PER_FAMILY
    assert all(predict(s, PARAMS, level, variant) != predict(s, PARAMS, level, _CLAIMED) for s in chosen)
    # and they are the first discriminating ones of the pool, in its order
    assert chosen == [s for s in pooled if s not in inert][:PER_FAMILY]
