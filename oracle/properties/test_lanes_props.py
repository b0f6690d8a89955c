"""Laws of write-set lanes: every path lands somewhere, oracle territory is always oracle, an
added skip or timeout in test code is always flake control, and production code never is."""
from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.lanes import Lane, OwnerRole, PathChange, classify

roles = st.frozensets(st.sampled_from(list(OwnerRole)), max_size=3)
segment = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
paths = st.builds(lambda parts, ext: "/".join(parts) + ext, st.lists(segment, min_size=1, max_size=4),
                  st.sampled_from([".py", ".json", ".md", ".txt", ""]))
lines = st.lists(st.text(alphabet="abcdefgh ()=._", max_size=30), max_size=5)
flake_line = st.sampled_from([
    "@pytest.mark.skip(reason='flaky')", "@pytest.mark.xfail", "@flaky(max_runs=3)",
    "    timeout=900,", "pytestmark = pytest.mark.skipif(True, reason='x')", "@settings(max_examples=5)",
    "args = ['--reruns', '3']",
])


@given(paths, st.sampled_from(["A", "M", "D"]), roles, lines)
def test_every_path_gets_at_least_one_lane(path, status, rs, added):
    assert classify(PathChange(path, status, added_lines=tuple(added)), rs)


@given(st.lists(segment, max_size=3), segment, roles, lines)
def test_everything_under_oracle_is_an_oracle(parts, name, rs, added):
    path = "/".join(["oracle", *parts, name + ".py"])
    assert Lane.ORACLE in classify(PathChange(path, "M", added_lines=tuple(added)), rs)


@given(paths, roles, lines, flake_line)
def test_an_added_flake_marker_in_test_code_is_flake_control(path, rs, added, marker):
    rs = rs | {OwnerRole.TEST}
    lanes = classify(PathChange(path, "M", added_lines=tuple(added) + (marker,)), rs)
    assert Lane.FLAKE_CONTROL in lanes


@given(st.lists(segment, min_size=1, max_size=3), flake_line)
def test_production_code_mentioning_timeouts_is_still_only_production(parts, marker):
    path = "src/" + "/".join(parts) + ".py"
    lanes = classify(PathChange(path, "M", added_lines=(marker,)), frozenset({OwnerRole.PRODUCTION}))
    assert lanes == frozenset({Lane.PRODUCTION})


@given(paths, roles)
def test_oracle_roles_always_put_the_path_in_the_oracle_lane(path, rs):
    for role in (OwnerRole.PROPERTY, OwnerRole.LOCKED_FIXTURE, OwnerRole.FREEZE_LEDGER):
        assert Lane.ORACLE in classify(PathChange(path, "M"), rs | {role})


@given(st.lists(segment, max_size=3), roles)
def test_conftest_is_never_production(parts, rs):
    path = "/".join([*parts, "conftest.py"])
    lanes = classify(PathChange(path, "M"), rs)
    assert Lane.FLAKE_CONTROL in lanes and Lane.PRODUCTION not in lanes


@given(st.lists(segment, min_size=1, max_size=3))
def test_an_unowned_python_file_fails_closed(parts):
    path = "/".join(parts) + ".py"
    assert classify(PathChange(path, "A"), frozenset()) == frozenset({Lane.UNMAPPED})
