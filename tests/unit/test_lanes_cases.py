from oracle_gate.core.lanes import Lane, OwnerRole, PathChange, classify


def lanes(path, roles=(), added=()):
    return classify(PathChange(path, "M", added_lines=tuple(added)), frozenset(roles))


def test_known_paths():
    assert lanes("src/billing/tax.py", [OwnerRole.PRODUCTION]) == {Lane.PRODUCTION}
    assert lanes("tests/test_tax.py", [OwnerRole.TEST]) == {Lane.TEST}
    assert lanes("tests/test_tax.py", [OwnerRole.TEST], ["@pytest.mark.xfail"]) == {Lane.TEST, Lane.FLAKE_CONTROL}
    assert lanes("tests/BUILD", [OwnerRole.TEST], ["    timeout=900,"]) == {Lane.TEST, Lane.FLAKE_CONTROL}
    assert lanes("oracle/fixtures/seed.json", [OwnerRole.LOCKED_FIXTURE]) == {Lane.ORACLE}
    assert lanes("pants.toml") == {Lane.FLAKE_CONTROL}
    downgrade = classify(PathChange("src/BUILD", "M", added_lines=('python_sources(oracle_region="state")',),
                                    removed_lines=('python_sources(oracle_region="pure")',)),
                         frozenset({OwnerRole.PRODUCTION}))
    assert downgrade == {Lane.PRODUCTION, Lane.ORACLE}
    assert lanes("tests/e2e/harness.py", [OwnerRole.TEST_UTIL]) == {Lane.FLAKE_CONTROL}
    assert lanes("README.md") == {Lane.OTHER}
    assert lanes("scripts/deploy.sh") == {Lane.UNMAPPED}
