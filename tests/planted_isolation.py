"""Planted implementations for the isolation tests: each misbehaves on a trigger input.

``planted(hypothesis, references)``: the hypothesis selects the behaviour; any other input
gets ``len(hypothesis)`` (a value the tests can check).  ``planted_corpus`` likewise on the
first hypothesis.  ``not_callable`` and ``three_args`` are bad specs.
"""

import ctypes
import math
import os
import time


def _behave(trigger: str, default):
    if trigger == "raise":
        return 1 / 0
    if trigger == "exit":
        os._exit(3)
    if trigger == "segv":
        ctypes.string_at(0)
    if trigger == "hang":
        time.sleep(1000)
    if trigger == "none":
        return None
    if trigger == "nan":
        return math.nan
    if trigger == "inf":
        return math.inf
    if trigger == "str":
        return "42"
    if trigger == "bool":
        return True
    if trigger == "int":
        return 50
    if trigger == "later":  # dies after answering: the next call must not be blamed
        import threading

        threading.Timer(0.2, os._exit, (5,)).start()
        return 1.0
    if trigger == "print":
        print("noise on stdout that must not corrupt the protocol")
        return 7.0
    return default


def planted(hypothesis, references):
    return _behave(hypothesis, float(len(hypothesis)))


def planted_corpus(hypotheses, references):
    return _behave(hypotheses[0], float(len(hypotheses)))


not_callable = 42


def three_args(a, b, c):
    return 0.0
