"""Laws of failure signatures: renames, moves, line shifts and parameter values cannot dodge a
freeze; a different exception or a different innermost frame is a different failure."""
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from oracle_gate.core.protocol.signature import SIGNATURE_RE, Frame, failure_signature, normalize_name

# Timing is no law here: a loaded machine (2 cores, suites in parallel) must not fail a deadline.
load_tolerant = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
ident = st.builds(lambda w, rest: "_".join([w, *rest]), word, st.lists(word, max_size=2)).filter(
    lambda s: normalize_name(s) == s
)
module = st.builds(lambda parts: "/".join(parts) + ".py", st.lists(word, min_size=1, max_size=3))
suffix = st.sampled_from(["_v2", "_v10", "_agent", "_agent3", "_retry", "_retry1", "_copy2"])
exc = st.sampled_from(["AssertionError", "TimeoutError", "KeyError", "ValueError", "skip", "xfail"])
frame = st.builds(Frame, path=module, function=ident)
frames = st.lists(frame, min_size=0, max_size=6)
shape = st.lists(st.builds("{}:{}".format, word, st.sampled_from(["int", "str", "float", "list"])), max_size=3)


@load_tolerant
@given(module, ident, exc, frames, shape)
def test_signature_is_short_hex_and_deterministic(path, name, e, fs, sh):
    a = failure_signature(f"{path}::{name}", e, fs, sh)
    assert SIGNATURE_RE.match(a)
    assert a == failure_signature(f"{path}::{name}", e, list(fs), list(sh))


@load_tolerant
@given(module, ident, st.lists(suffix, min_size=1, max_size=3), exc, frames, shape)
def test_agent_suffixes_do_not_change_the_signature(path, name, suffixes, e, fs, sh):
    renamed = name + "".join(suffixes)
    test_frames = [Frame(path, name)] + fs
    renamed_frames = [Frame(path, renamed)] + fs
    assert failure_signature(f"{path}::{name}", e, test_frames, sh) == failure_signature(
        f"{path}::{renamed}", e, renamed_frames, sh
    )


@load_tolerant
@given(module, module, ident, exc, frames, shape)
def test_moving_the_test_file_does_not_change_the_signature(old, new, name, e, fs, sh):
    assume(all(f.path not in (old, new) for f in fs))
    before = failure_signature(f"{old}::{name}", e, fs + [Frame(old, name)], sh)
    after = failure_signature(f"{new}::{name}", e, fs + [Frame(new, name)], sh)
    assert before == after


@load_tolerant
@given(module, ident, exc, frames, shape, st.lists(st.integers(1, 10_000), min_size=6, max_size=6))
def test_line_numbers_do_not_change_the_signature(path, name, e, fs, sh, lines):
    shifted = [Frame(f"{f.path}:{n}", f.function) for f, n in zip(fs, lines)]
    assert failure_signature(f"{path}::{name}", e, fs, sh) == failure_signature(f"{path}::{name}", e, shifted, sh)


@load_tolerant
@given(module, ident, exc, frames, shape, st.text(alphabet="abc0123-", min_size=1, max_size=8),
       st.text(alphabet="xyz4567-", min_size=1, max_size=8))
def test_parametrize_ids_do_not_change_the_signature(path, name, e, fs, sh, id1, id2):
    assert failure_signature(f"{path}::{name}[{id1}]", e, fs, sh) == failure_signature(
        f"{path}::{name}[{id2}]", e, fs, sh
    )


@load_tolerant
@given(module, ident, exc, exc, frames, shape)
def test_a_different_exception_type_is_a_different_failure(path, name, e1, e2, fs, sh):
    assume(e1 != e2)
    assert failure_signature(f"{path}::{name}", e1, fs, sh) != failure_signature(f"{path}::{name}", e2, fs, sh)


@load_tolerant
@given(module, ident, exc, frames, frame, frame, shape)
def test_a_different_innermost_frame_is_a_different_failure(path, name, e, fs, f1, f2, sh):
    assume(f1.function != f2.function and f1.path != path and f2.path != path)
    assert failure_signature(f"{path}::{name}", e, fs + [f1], sh) != failure_signature(
        f"{path}::{name}", e, fs + [f2], sh
    )


@load_tolerant
@given(module, ident, exc, st.lists(frame, min_size=3, max_size=3), frames, shape)
def test_only_the_innermost_three_frames_count(path, name, e, top, outer, sh):
    assert failure_signature(f"{path}::{name}", e, top, sh) == failure_signature(
        f"{path}::{name}", e, outer + top, sh
    )


@load_tolerant
@given(module, ident, exc, frames, shape, shape)
def test_parameter_shape_is_part_of_the_signature(path, name, e, fs, sh1, sh2):
    assume(sorted(sh1) != sorted(sh2))
    assert failure_signature(f"{path}::{name}", e, fs, sh1) != failure_signature(f"{path}::{name}", e, fs, sh2)


@load_tolerant
@given(ident, st.lists(suffix, max_size=4))
def test_normalize_name_is_idempotent(name, suffixes):
    once = normalize_name(name + "".join(suffixes))
    assert normalize_name(once) == once == name
