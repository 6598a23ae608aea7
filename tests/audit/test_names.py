"""Name binding: names of a pasted table stand for the actual run's names, consistently."""

from __future__ import annotations

import random

from fakekube.audit.names import NameBinding, generated, rest_matches
from fakekube.namerules import generate_name


def test_generated_parts_are_what_kubernetes_generators_make() -> None:
    rng = random.Random(5)
    suffixes = [generate_name("warmpool-0-", rng)[len("warmpool-0-"):] for _ in range(200)]
    assert all(generated(s) for s in suffixes)                    # generateName suffixes
    assert generated("1886725262fb3c01") and generated("18a")    # an Event's UnixNano in hex, or its start
    assert not any(generated(w) for w in ("network", "policy", "status", "claim", ""))


def test_rest_matches_part_by_part() -> None:
    assert rest_matches("-network-policy", "-network-policy")
    assert not rest_matches("-network-policy", "-network-polic")
    assert rest_matches("-6qkhx", "-hld9g")                       # generated ~ generated
    assert not rest_matches("-6qkhx", ".hld9g")                   # not after the same separator
    assert not rest_matches("-6qkhx", "-hld9g-x2x4z")
    assert rest_matches(".18a", ".1886725262fb3c01", prefix=True)
    assert rest_matches("-net", "-network-policy", prefix=True)
    assert not rest_matches("-net", "-network-policy")


def _bind(binding: NameBinding, name: str, actual: str, prefix: bool = False) -> bool:
    trial = binding.trial(name, actual, prefix=prefix)
    if trial is None:
        return False
    binding.commit(trial)
    return True


def test_a_name_binds_to_the_first_actual_name_and_stays_bound() -> None:
    b = NameBinding(["agent-claim-4", "agent-claim-5"])
    assert _bind(b, "agent-claim-4", "sandboxclaim-0")
    assert not _bind(b, "agent-claim-4", "sandboxclaim-1")       # stays bound
    assert not _bind(b, "agent-claim-5", "sandboxclaim-0")       # two names, two objects
    assert _bind(b, "agent-claim-5", "sandboxclaim-1")
    assert b.bound == {"agent-claim-4": "sandboxclaim-0", "agent-claim-5": "sandboxclaim-1"}


def test_derived_names_follow_their_stem_in_either_order() -> None:
    names = ["agent-claim-4", "agent-claim-4-network-policy", "warmpool-0", "warmpool-0-6qkhx", "warmpool-0-qcblt"]
    b = NameBinding(names)
    assert _bind(b, "agent-claim-4", "sandboxclaim-0")
    assert not _bind(b, "agent-claim-4-network-policy", "sandboxclaim-1-network-policy")
    assert _bind(b, "agent-claim-4-network-policy", "sandboxclaim-0-network-policy")
    # The sandbox first: binding it fixes its pool, which the table names only later.
    assert _bind(b, "warmpool-0-6qkhx", "cluster-loader-warmpool-hld9g")
    assert b.bound["warmpool-0"] == "cluster-loader-warmpool"
    assert not _bind(b, "warmpool-0", "other-pool")
    assert not _bind(b, "warmpool-0-qcblt", "other-pool-5ddz4")  # a sandbox of another pool
    assert not _bind(b, "warmpool-0-qcblt", "cluster-loader-warmpool-hld9g")  # taken by 6qkhx
    assert _bind(b, "warmpool-0-qcblt", "cluster-loader-warmpool-5ddz4")


def test_prefixes_follow_the_name_they_start_with() -> None:
    b = NameBinding(["agent-claim-4"], prefixes=["agent-claim-4", "agent-claim-4.18a"])
    # Before agent-claim-4 is bound, "agent-claim-4..." says nothing about where the object's name ends.
    assert b.trial("agent-claim-4", "sandboxclaim-0.1886725262fb3c01", prefix=True) is None
    assert _bind(b, "agent-claim-4", "sandboxclaim-0")
    assert _bind(b, "agent-claim-4", "sandboxclaim-0.1886725262fb3c01", prefix=True)
    assert _bind(b, "agent-claim-4.18a", "sandboxclaim-0.1886725262fb3c01", prefix=True)
    assert not _bind(b, "agent-claim-4", "sandboxclaim-1.1886725262fb3c01", prefix=True)
    assert not _bind(b, "agent-claim-4", "sandboxclaim-01.x", prefix=True)
    assert b.bound == {"agent-claim-4": "sandboxclaim-0"}      # prefixes bind nothing of their own


def test_an_events_prefix_alone_binds_the_object_it_names() -> None:
    b = NameBinding([], prefixes=["agent-claim-4.18a"])
    assert _bind(b, "agent-claim-4.18a", "sandboxclaim-0.1886725262fb3c01", prefix=True)
    assert b.bound == {"agent-claim-4": "sandboxclaim-0"}
    assert not _bind(b, "agent-claim-4.18a", "sandboxclaim-1.1886725262fb3c01", prefix=True)


def test_names_the_actual_run_has_bind_only_to_themselves() -> None:
    b = NameBinding(["w0", "w1"], actual_names=["w0", "x"])
    assert not _bind(b, "w0", "x")
    assert not _bind(b, "w1", "w0")                              # w0 is reserved for the table's w0
    assert _bind(b, "w0", "w0") and _bind(b, "w1", "x")
