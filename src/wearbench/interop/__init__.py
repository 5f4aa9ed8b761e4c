"""Interoperability with other benchmark formats.

The official WearableQA release file (export, import, evaluation cache), Hugging Face
``datasets`` Parquet and Inspect (``inspect_ai``) task exports.
"""

from wearbench.interop._common import OFFICIAL_KEYS
from wearbench.interop._export import (
    export_official,
    export_official_groups,
    item_reference,
    official_document,
    official_group_documents,
)
from wearbench.interop._hf import HF_COLUMNS, HF_PARQUET, ItemData, export_hf, item_data
from wearbench.interop._import import ImportResult, import_official
from wearbench.interop._inspect import INSPECT_SAMPLES, INSPECT_TASK, export_inspect
from wearbench.interop._official_eval import RAW_NAME, jsonl_document, load_official

__all__ = [
    "HF_COLUMNS",
    "HF_PARQUET",
    "INSPECT_SAMPLES",
    "INSPECT_TASK",
    "OFFICIAL_KEYS",
    "RAW_NAME",
    "ImportResult",
    "ItemData",
    "export_hf",
    "export_inspect",
    "export_official",
    "export_official_groups",
    "import_official",
    "item_data",
    "item_reference",
    "jsonl_document",
    "load_official",
    "official_document",
    "official_group_documents",
]
