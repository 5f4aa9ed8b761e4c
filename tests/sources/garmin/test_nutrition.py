from pathlib import Path

import pandas as pd

from wearbench.sources import ImportLog, import_source
from wearbench.sources.garmin._uom_nutrition import check_nutrition


def test_meals_outside_the_record_and_bad_stamps_are_counted(tmp_path: Path) -> None:
    folder = tmp_path / "Nutrition Data"
    folder.mkdir()
    (folder / "UoMNutrition2301.csv").write_text(
        "\ufeffmeal_ts,meal_type,meal_tag,carbs_g,prot_g,fat_g,fibre_g\n"
        "22/10/2023 10:00,Breakfast,Coffee,0,0,1,0\n"
        " 23/10/2023 12:00,Lunch,Soup,20,5,3,2\n"
        "22/04/2204 11:45,Lunch,Sandwich,37,10,14,0\n"
        "21/02/2024,Dinner,Pasta,80,20,10,5\n"
    )
    log = ImportLog()
    span = {"2301": (pd.Timestamp("2023-10-01"), pd.Timestamp("2023-12-31"))}
    assert check_nutrition(folder, span, log) == 3  # the date-only row does not parse
    assert log.rejections == {
        "nutrition: meal dated outside the participant's record": 1,
        "nutrition: unparseable meal_ts": 1,
    }
    assert log.repairs == {"nutrition: spaces around meal_ts stripped": 1}
    assert log.examples["nutrition: meal dated outside the participant's record"] == [
        "UoMNutrition2301.csv line 4: user 2301, meal_ts = '22/04/2204 11:45'"
    ]


def test_the_year_2204_meal_of_t1d_uom_is_reported(shared_data: Path) -> None:
    _, report = import_source("garmin-uom", shared_data / "t1d_uom")
    examples = report.examples["nutrition: meal dated outside the participant's record"]
    assert any("UoMNutrition2404.csv line 168" in e and "2204" in e for e in examples)
