"""``oz0.fit``: the same module as ``custodian.fit``, under the name the platform's documentation uses.

``count`` is ``weigh``; ``fit`` is ``fit_json``.
"""

from custodian.fit import *  # noqa: F401,F403
from custodian.fit import __all__ as _all, fit_json as fit, weigh as count  # noqa: F401

__all__ = list(_all) + ["fit"]
