"""The verdict over a comparison and the recorded evidence, and its renderings (JSON, JUnit, lines)."""
