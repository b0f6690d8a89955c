"""Laws of the results protocol: every record round-trips through its canonical bytes, the bytes
do not depend on the order the recorder found things in, and broken input is always a one-line
ResultsError (never another exception)."""
import json

from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.protocol.results import (MARKERS, OUTCOMES, PHASES, FileRecord, Mutant, Rebound, ResultsError,
                                               SessionResults, TestRecord, VERSION, Versions, dumps, loads)

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
name = text.filter(bool)
hex16 = st.binary(min_size=8, max_size=8).map(bytes.hex)
sha256 = st.binary(min_size=32, max_size=32).map(bytes.hex)
code = st.tuples(name, st.integers(0, 10_000), name)


@st.composite
def records(draw, nodeid):
    hypothesis = draw(st.none() | st.tuples(st.integers(0, 10_000), st.booleans()))
    return TestRecord(
        nodeid=nodeid, file=draw(text), outcome=draw(st.sampled_from(OUTCOMES)), phase=draw(st.sampled_from(PHASES)),
        signature=draw(st.none() | hex16), exception=draw(st.none() | text), marker=draw(st.none() | st.sampled_from(MARKERS)),
        reason=draw(st.none() | text), examples=hypothesis and hypothesis[0], exhausted=hypothesis and hypothesis[1],
        tail=tuple(draw(st.lists(text, max_size=3))),
    )


@st.composite
def file_records(draw, path):
    return FileRecord(
        path=path, address=draw(st.none() | text), collected=tuple(draw(st.lists(name, max_size=3))),
        collection_error=draw(st.none() | text), executed=tuple(draw(st.lists(code, max_size=4))),
        fixtures=tuple(draw(st.dictionaries(name, st.none() | sha256, max_size=2)).items()),
    )


@st.composite
def sessions(draw):
    nodeids = draw(st.lists(name, unique=True, max_size=4))
    paths = draw(st.lists(name, unique=True, max_size=3))
    mutant = draw(st.none() | st.builds(Mutant, id=text, path=text, served=st.booleans()))
    rebound = draw(st.lists(st.builds(Rebound, path=name, name=name, origin=text, what=text), max_size=3,
                            unique_by=lambda r: (r.path, r.name)))
    return SessionResults(
        complete=draw(st.booleans()), exit_status=draw(st.none() | st.integers(-255, 255)),
        versions=Versions(python=draw(text), pytest=draw(text), hypothesis=draw(st.none() | text)),
        interrupted=draw(st.none() | text), tests=tuple(draw(records(n)) for n in nodeids),
        files=tuple(draw(file_records(p)) for p in paths), recorder_errors=tuple(draw(st.lists(text, max_size=2))),
        mutant=mutant, rebound=tuple(rebound), connections=tuple(draw(st.lists(text, max_size=25))),
    )


@given(sessions())
def test_results_round_trip_through_their_bytes(results):
    assert loads(dumps(results)) == results


@given(sessions(), st.randoms(use_true_random=False))
def test_the_bytes_do_not_depend_on_the_order_things_were_found(results, random):
    tests, files = list(results.tests), list(results.files)
    random.shuffle(tests)
    random.shuffle(files)
    shuffled_files = [
        FileRecord(path=f.path, address=f.address, collected=tuple(random.sample(f.collected, len(f.collected))),
                   collection_error=f.collection_error, executed=tuple(reversed(f.executed)),
                   fixtures=tuple(reversed(f.fixtures)))
        for f in files
    ]
    shuffled = SessionResults(complete=results.complete, exit_status=results.exit_status, versions=results.versions,
                              interrupted=results.interrupted, tests=tuple(tests), files=tuple(shuffled_files),
                              recorder_errors=results.recorder_errors, mutant=results.mutant,
                              rebound=tuple(reversed(results.rebound)), connections=tuple(reversed(results.connections)))
    assert shuffled == results
    assert dumps(shuffled) == dumps(results)
    assert dumps(loads(dumps(results))) == dumps(results)


def _corrupt(raw, draw):
    """One structural change a malformed or forged file could have."""
    where = draw(st.sampled_from(["top", "test", "file"]))
    target = raw if where == "top" or not raw[where + "s"] else draw(st.sampled_from(raw[where + "s"]))
    change = draw(st.sampled_from(["drop", "add", "version"] if where == "top" else ["drop", "add"]))
    if change == "drop":
        del target[draw(st.sampled_from(sorted(target)))]
    elif change == "add":
        target[draw(name.filter(lambda k: k not in target))] = draw(st.none() | st.integers() | text)
    else:
        raw["version"] = draw(st.integers().filter(lambda v: v != VERSION))


@given(sessions(), st.data())
def test_a_broken_file_is_a_one_line_results_error(results, data):
    raw = json.loads(dumps(results))
    _corrupt(raw, data.draw)
    try:
        loads(json.dumps(raw).encode())
    except ResultsError as e:
        assert str(e).startswith("results: ") and "\n" not in str(e)
    else:
        raise AssertionError("a corrupted results file was accepted")


@given(sessions(), st.data())
def test_a_truncated_file_is_a_results_error(results, data):
    blob = dumps(results)
    cut = data.draw(st.integers(0, len(blob) - 2))  # anything short of the closing brace
    try:
        loads(blob[:cut])
    except ResultsError as e:
        assert "\n" not in str(e)
    else:
        raise AssertionError("a truncated results file was accepted")


@given(st.binary(max_size=200) | text.map(str.encode))
def test_arbitrary_bytes_never_raise_anything_but_a_results_error(blob):
    try:
        loads(blob)
    except ResultsError:
        pass
