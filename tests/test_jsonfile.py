from pathlib import Path

import pytest

from wearbench import WearbenchError
from wearbench._jsonfile import read_json_object


def test_reads_an_object(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"b": [1, 2]}', encoding="utf-8")
    assert read_json_object(tmp_path / "a.json", missing="x") == {"b": [1, 2]}


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "make it first"), ("{not json", "cannot be read as JSON"), ("[1]", "holds a list")],
)
def test_errors_name_the_file(tmp_path: Path, content: str | None, message: str) -> None:
    file = tmp_path / "a.json"
    if content is not None:
        file.write_text(content, encoding="utf-8")
    with pytest.raises(WearbenchError, match=message) as info:
        read_json_object(file, missing="make it first")
    assert str(file) in str(info.value)
