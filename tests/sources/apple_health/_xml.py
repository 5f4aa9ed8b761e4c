"""Tiny hand-written export.xml snippets (the layout of the real exports)."""

from pathlib import Path

Q = "HKQuantityTypeIdentifier"
WATCH = (
    'sourceName="Ann’s Apple Watch" sourceVersion="10.2" device="&lt;&lt;HKDevice: 0x1&gt;, '
    'name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2&gt;"'
)
PHONE = (
    'sourceName="Ann’s iPhone" sourceVersion="17.2" device="&lt;&lt;HKDevice: 0x2&gt;, '
    'name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.2&gt;"'
)
OTHER = 'sourceName="Pedometer++" sourceVersion="5.1"'
ME = (
    '<Me HKCharacteristicTypeIdentifierDateOfBirth="1990-05-20" '
    'HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" '
    'HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" '
    'HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" '
    'HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>'
)


def rec(rtype: str, start: str, end: str, value: str, src: str = WATCH, unit: str = "count") -> str:
    t = rtype if rtype.startswith("HK") else Q + rtype
    unit_attr = f' unit="{unit}"' if unit else ""
    return f' <Record type="{t}" {src}{unit_attr} startDate="{start}" endDate="{end}" value="{value}"/>\n'


def sleep(start: str, end: str, stage: str, src: str = WATCH) -> str:
    return rec(
        "HKCategoryTypeIdentifierSleepAnalysis", start, end, f"HKCategoryValueSleepAnalysis{stage}", src, ""
    )


def export(
    tmp_path: Path, body: str, name: str = "ann.xml", export_date: str = "2024-06-01 08:00:00 +0000"
) -> Path:
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n'
        f' <ExportDate value="{export_date}"/>\n {ME}\n{body}</HealthData>\n'
    )
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path
