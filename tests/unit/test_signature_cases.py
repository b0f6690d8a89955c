from oracle_gate.core.protocol.signature import Frame, failure_signature, normalize_name, parameter_shape


def test_normalized_names():
    assert normalize_name("tests/a.py::TestX::test_rate_v2_retry1[3-4]") == "test_rate"
    assert normalize_name("test_agent") == "test"
    assert normalize_name("_v2") == "_v2"


def test_a_known_signature_is_pinned():
    frames = [Frame("tests/test_r.py", "test_rate"), Frame("src/billing/rates.py:41", "fetch")]
    assert failure_signature("tests/test_r.py::test_rate", "TimeoutError", frames, ()) == "7fbaaf45ec8237ed"


def test_parameter_shape_keeps_types_not_values():
    assert parameter_shape({"b": "x", "a": 3}) == ("a:int", "b:str")
