"""schemathesis hooks for scripts/contract-fuzz.sh (loaded through SCHEMATHESIS_HOOKS).

`documented_error_code`: every error answer's stable code (`code` of a problem document,
`error` of an RFC 6749 body) is one the contract shows as an example of that operation's
response for that status, so the examples integrators read are the codes they will get.
"""
import pathlib

import schemathesis
import yaml

SPEC = yaml.safe_load((pathlib.Path(__file__).resolve().parent.parent / "OpenAPI" / "gateway.yaml").read_text())


def _resolve(node):
    while isinstance(node, dict) and "$ref" in node:
        target = SPEC
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def documented_codes(method, path, status):
    """The codes shown in examples of `method path`'s response for `status` (None: no such response)."""
    operation = SPEC["paths"].get(path, {}).get(method.lower())
    if operation is None:
        return None
    response = operation["responses"].get(str(status)) or operation["responses"].get(f"{str(status)[0]}XX")
    if response is None:
        return None
    codes = set()
    for media in (_resolve(response).get("content") or {}).values():
        values = [media["example"]] if "example" in media else []
        values += [_resolve(example).get("value") for example in (media.get("examples") or {}).values()]
        for value in values:
            if isinstance(value, dict):
                codes.update(v for k, v in value.items() if k in ("code", "error") and isinstance(v, str))
    return codes


@schemathesis.check
def documented_error_code(ctx, response, case):
    if response.status_code < 400:
        return None
    try:
        body = response.json()
    except Exception:
        return None  # HTML error pages carry no code
    if not isinstance(body, dict):
        return None
    code = body.get("code") if "code" in body else body.get("error")
    if not isinstance(code, str):
        return None
    documented = documented_codes(case.method, case.operation.path, response.status_code)
    if documented is None:
        return None  # an undocumented status is status_code_conformance's finding
    if code not in documented:
        raise AssertionError(
            f"{case.method} {case.operation.path} answered {response.status_code} `{code}`, "
            f"but the contract's examples for {response.status_code} show only {sorted(documented) or 'no code'}"
        )
    return None
