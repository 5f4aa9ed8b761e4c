"""Interoperability with other benchmark formats: the official WearableQA release file."""

from wearbench.interop._export import OFFICIAL_KEYS, export_official, official_document
from wearbench.interop._import import ImportResult, import_official

__all__ = ["OFFICIAL_KEYS", "ImportResult", "export_official", "import_official", "official_document"]
