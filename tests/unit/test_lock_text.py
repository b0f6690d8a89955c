from oracle_gate.rules.lock import relock_text

OLD, NEW = "a" * 64, "b" * 64
BUILD = f'''
locked_fixture(name="one", source="one.json", sha256="{OLD}")
locked_fixture(
    name="two",  # a comment with (parens)
    source="two.json",
    sha256="{OLD}",
)
'''


def test_only_the_named_call_is_rewritten():
    out = relock_text(BUILD, "two", "fixtures", OLD, NEW)
    assert out is not None
    assert out.count(NEW) == 1 and out.count(OLD) == 1
    assert f'name="one", source="one.json", sha256="{OLD}"' in out


def test_a_missing_target_or_digest_is_none():
    assert relock_text(BUILD, "three", "fixtures", OLD, NEW) is None
    assert relock_text(BUILD, "one", "fixtures", NEW, OLD) is None
