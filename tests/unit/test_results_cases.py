import json

import pytest

from oracle_gate.core.protocol.results import (CONNECTIONS_KEPT, MOCK, RESULTS_RELPATH, FileRecord, Mutant, Rebound,
                                               ResultsError, SessionResults, TestRecord, Versions, dumps, loads)

SHA = "a" * 64
VERSIONS = Versions(python="3.9.18", pytest="7.0.1", hypothesis="6.141.1")
PASSED = TestRecord(nodeid="tests/test_a.py::test_ok", file="tests/test_a.py", outcome="passed", phase="call")
FAILED = TestRecord(
    nodeid="tests/test_a.py::test_bad", file="tests/test_a.py", outcome="failed", phase="call",
    signature="0123456789abcdef", exception="AssertionError", tail=("E   assert 1 == 2",),
)
PROPERTY = TestRecord(nodeid="tests/test_a.py::test_prop", file="tests/test_a.py", outcome="passed", phase="call",
                      examples=2, exhausted=True)
FILE = FileRecord(
    path="tests/test_a.py", address="tests/test_a.py:tests",
    collected=("tests/test_a.py::test_ok", "tests/test_a.py::test_bad", "tests/test_a.py::test_prop"),
    executed=(("src/calc.py", 4, "add"), ("src/calc.py", 1, "<module>")), fixtures=(("fixtures/seed.json", SHA),),
)
SESSION = SessionResults(complete=True, exit_status=1, versions=VERSIONS, tests=(PROPERTY, FAILED, PASSED),
                         files=(FILE,))


def test_the_results_path_is_under_pytests_extra_output():
    assert RESULTS_RELPATH == "oracle-gate/results.json"


def test_a_known_session_has_pinned_bytes():
    assert dumps(SESSION) == (
        b'{"complete":true,"connections":[],"exit_status":1,"files":[{"address":"tests/test_a.py:tests","collected":'
        b'["tests/test_a.py::test_bad","tests/test_a.py::test_ok","tests/test_a.py::test_prop"],'
        b'"collection_error":null,"executed":[["src/calc.py",1,"<module>"],["src/calc.py",4,"add"]],'
        b'"fixtures":{"fixtures/seed.json":"' + SHA.encode() + b'"},"path":"tests/test_a.py"}],'
        b'"interrupted":null,"mutant":null,"rebound":[],"recorder_errors":[],"schema":"oracle-gate/results","tests":['
        b'{"examples":null,"exception":"AssertionError","exhausted":null,"file":"tests/test_a.py","marker":null,'
        b'"nodeid":"tests/test_a.py::test_bad","outcome":"failed","phase":"call","reason":null,'
        b'"signature":"0123456789abcdef","tail":["E   assert 1 == 2"]},'
        b'{"examples":null,"exception":null,"exhausted":null,"file":"tests/test_a.py","marker":null,'
        b'"nodeid":"tests/test_a.py::test_ok","outcome":"passed","phase":"call","reason":null,"signature":null,'
        b'"tail":[]},'
        b'{"examples":2,"exception":null,"exhausted":true,"file":"tests/test_a.py","marker":null,'
        b'"nodeid":"tests/test_a.py::test_prop","outcome":"passed","phase":"call","reason":null,'
        b'"signature":null,"tail":[]}],'
        b'"version":3,"versions":{"hypothesis":"6.141.1","pytest":"7.0.1","python":"3.9.18"}}\n'
    )
    assert loads(dumps(SESSION)) == SESSION


def test_records_are_normalised_so_order_does_not_matter():
    assert SESSION.tests == (FAILED, PASSED, PROPERTY)
    assert FILE.executed == (("src/calc.py", 1, "<module>"), ("src/calc.py", 4, "add"))
    shuffled = SessionResults(complete=True, exit_status=1, versions=VERSIONS, tests=(PASSED, PROPERTY, FAILED),
                              files=[FILE])
    assert dumps(shuffled) == dumps(SESSION)


def test_lookups_and_unrecorded_tests():
    interrupted = SessionResults(complete=False, exit_status=0, versions=VERSIONS, tests=(PASSED,), files=(FILE,),
                                 interrupted="pytest.exit(returncode=0): stop", mutant=Mutant("m1", "src/calc.py", True))
    assert interrupted.test(PASSED.nodeid) == PASSED
    assert interrupted.test("nope") is None
    assert interrupted.file("tests/test_a.py") == FILE
    assert interrupted.unrecorded() == ("tests/test_a.py::test_bad", "tests/test_a.py::test_prop")
    assert loads(dumps(interrupted)) == interrupted


def test_rebound_names_round_trip_sorted_and_once_each():
    tax = Rebound("src/tax.py", "amount_due", "", "builtin max")
    mock = Rebound("src/calc.py", "add", "", MOCK)
    session = SessionResults(complete=True, exit_status=0, versions=VERSIONS, rebound=(tax, mock))
    assert session.rebound == (mock, tax)
    assert b'"rebound":[["src/calc.py","add","","a mock"],["src/tax.py","amount_due","","builtin max"]]' in dumps(session)
    assert loads(dumps(session)) == session
    with pytest.raises(ResultsError, match="rebound name .*recorded twice"):
        SessionResults(complete=True, exit_status=0, versions=VERSIONS, rebound=(tax, tax))
    with pytest.raises(ResultsError, match=r"rebound\[0\] must be \[path, name, origin, what\]"):
        loads(_raw(rebound=[["src/tax.py", "amount_due"]]))
    with pytest.raises(ResultsError, match="a rebound name holds"):
        loads(_raw(rebound=[["src/tax.py", "", "", "x"]]))


def test_connections_are_kept_sorted_once_each_and_bounded():
    many = [f"192.0.2.{i}:80" for i in range(30)]
    session = SessionResults(complete=True, exit_status=0, versions=VERSIONS,
                             connections=("example.org:443", "192.0.2.1:80", "example.org:443"))
    assert session.connections == ("192.0.2.1:80", "example.org:443")
    assert b'"connections":["192.0.2.1:80","example.org:443"]' in dumps(session)
    assert loads(dumps(session)) == session
    kept = SessionResults(complete=True, exit_status=0, versions=VERSIONS, connections=tuple(reversed(many)))
    assert kept.connections == tuple(sorted(many))[:CONNECTIONS_KEPT]
    with pytest.raises(ResultsError, match="`connections` must hold strings only"):
        loads(_raw(connections=[80]))


def _raw(**changes):
    raw = json.loads(dumps(SESSION))
    raw.update(changes)
    return json.dumps(raw).encode()


def _with_test(**changes):
    raw = json.loads(dumps(SESSION))
    raw["tests"][0].update(changes)
    return json.dumps(raw).encode()


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "results: not valid JSON: Expecting value: line 1 column 1 (char 0)"),
        (b"\xff", "results: not valid JSON: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
        (b"[]", "results: the file must be a JSON object"),
        (_raw(schema="other"), "results: `schema` must be 'oracle-gate/results', got 'other'"),
        (_raw(version=2), "results: version 2 is not supported (this gate reads version 3)"),
        (_raw(extra=1), "results: unknown key(s) 'extra'"),
        (_raw(complete="yes"), "results: `complete` must be true or false"),
        (_raw(exit_status=True), "results: `exit_status` must be an integer or null"),
        (_raw(tests={}), "results: `tests` must be a JSON list"),
        (_with_test(outcome="passd"),
         "results: test 'tests/test_a.py::test_bad': `outcome` 'passd' is not one of "
         "passed, failed, error, skipped, xfailed, xpassed"),
        (_with_test(marker="flaky"),
         "results: test 'tests/test_a.py::test_bad': `marker` 'flaky' is not one of "
         "skip, skipif, xfail, importorskip, pytest.skip, pytest.xfail, deselected, unittest"),
        (_with_test(signature="XYZ"),
         "results: test 'tests/test_a.py::test_bad': `signature` must be 16 lowercase hex characters or null, "
         "got 'XYZ'"),
        (_with_test(examples=3), "results: test 'tests/test_a.py::test_bad': `examples` and `exhausted` are both "
                                 "null (not a Hypothesis test) or both set"),
        (_with_test(examples=-1, exhausted=False),
         "results: test 'tests/test_a.py::test_bad': `examples` must be a non-negative integer or null, got -1"),
        (_with_test(nodeid="tests/test_a.py::test_ok"), "results: test 'tests/test_a.py::test_ok' is recorded twice"),
        (_with_test(tail="one line"), "results: tests[0].tail must be a JSON list"),
    ],
)
def test_malformed_results_are_one_line_errors(data, message):
    with pytest.raises(ResultsError) as e:
        loads(data)
    assert str(e.value) == message


def test_malformed_files_name_the_file():
    raw = json.loads(dumps(SESSION))
    raw["files"][0]["executed"] = [["src/calc.py", "4", "add"]]
    with pytest.raises(ResultsError, match=r"^results: file 'tests/test_a.py': `executed` entries must be "):
        loads(json.dumps(raw).encode())
    raw["files"][0]["executed"] = []
    raw["files"][0]["fixtures"] = {"fixtures/seed.json": "abc"}
    with pytest.raises(ResultsError, match=r"^results: file 'tests/test_a.py': `fixtures` maps a path to a sha256"):
        loads(json.dumps(raw).encode())
    del raw["files"][0]["fixtures"]
    with pytest.raises(ResultsError, match=r"^results: files\[0\]: missing key\(s\) fixtures$"):
        loads(json.dumps(raw).encode())
