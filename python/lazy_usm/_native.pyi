from typing import Any, Dict, Optional

__version__: str

def probe(pid: Optional[int] = None) -> Dict[str, Any]: ...
