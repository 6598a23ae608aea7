from fakekube.pods.selection import ContainerSelector, Rules

POD = {"metadata": {"namespace": "db", "name": "pg-0", "labels": {"app": "pg", "tier": "data"}}}


def test_empty_selector_matches_every_container() -> None:
    assert ContainerSelector.of().matches(POD, "main")


def test_each_field_narrows() -> None:
    assert ContainerSelector.of(namespace="db", pod="pg-0", labels="app=pg", container="main").matches(POD, "main")
    assert not ContainerSelector.of(namespace="other").matches(POD, "main")
    assert not ContainerSelector.of(pod=["pg-1", "pg-2"]).matches(POD, "main")
    assert not ContainerSelector.of(labels={"app": "redis"}).matches(POD, "main")
    assert ContainerSelector.of(labels="tier in (data,cache),!canary").matches(POD, "main")
    assert not ContainerSelector.of(container="sidecar").matches(POD, "main")


def test_newest_matching_rule_wins_and_removal_restores_the_older() -> None:
    rules: Rules[str] = Rules()
    rules.add(ContainerSelector.of(), "default")
    remove = rules.add(ContainerSelector.of(pod="pg-0"), "pg")
    assert rules.find(POD, "main") == "pg"
    remove()
    assert rules.find(POD, "main") == "default"
    rules.clear()
    assert rules.find(POD, "main") is None
