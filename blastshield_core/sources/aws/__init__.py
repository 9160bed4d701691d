"""AWS import: read-only AWS CLI exports -> one graph document, through the import path.

get.py recognises export files by content, policy.py is the pure IAM policy
evaluator, transform.py maps AWS objects to a graph document with warnings, and
load.py writes it through `ingest.import_document` (re-syncing accounts), or one user's
slice in place (`inplace.replace_slice`).
The mapping is documented in docs/aws-import.md.
"""

from .build.get import AwsInputError, AwsSources, SourceFile, read_sources
from .build.load import build_document, import_aws, read_sensitivity_file, resync_user
from .build.report import AwsImportReport
from .build.transform import entity_id

__all__ = [
    "AwsImportReport",
    "AwsInputError",
    "AwsSources",
    "SourceFile",
    "build_document",
    "entity_id",
    "import_aws",
    "read_sensitivity_file",
    "read_sources",
    "resync_user",
]
