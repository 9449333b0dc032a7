#!/usr/bin/env python3
"""A short integrator scenario through a Python client GENERATED from OpenAPI/gateway.yaml
by openapi-python-client, against a live gateway (development mode, tenant demo): sign in
(native JSON authorize + token), list mini apps, read one and its manifest, store consents,
write and read secure storage, send analytics, and resolve the contract's own deep-link example. Every answer must parse into the generated
model it is declared as (a Problem or None where a success is expected fails the run), so a
contract change that breaks non-Swift generators fails CI.
Usage: python-client-scenario.py GENERATED_CLIENT_DIR BASE_URL PASSWORD_FILE"""
import base64, hashlib, pathlib, secrets, sys, urllib.parse

import yaml

client_dir, base, password_file = sys.argv[1:4]
sys.path.insert(0, client_dir)
from super_app_gateway_api_client import AuthenticatedClient, Client  # noqa: E402
from super_app_gateway_api_client.api.host import resolve_deep_link  # noqa: E402
from super_app_gateway_api_client.api.o_auth import post_authorize, post_token  # noqa: E402
from super_app_gateway_api_client.api.mini_apps import get_mini_app, get_mini_app_manifest, list_mini_apps  # noqa: E402
from super_app_gateway_api_client.api.user_state import (  # noqa: E402
    get_mini_app_storage_item, post_analytics, put_mini_app_permissions, put_mini_app_storage)
from super_app_gateway_api_client import models  # noqa: E402

fields = dict(line.split(": ", 1) for line in open(password_file).read().splitlines() if ": " in line)
tenant, client_id, redirect = "demo", "demo-app", "http://127.0.0.1/callback"
steps = []


def expect(step, value, kind):
    if not isinstance(value, kind):
        sys.exit(f"FAIL {step}: expected {kind.__name__}, got {value!r}")
    steps.append(step)
    return value


verifier = secrets.token_urlsafe(48)
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
anonymous = Client(base_url=base, headers={"Accept": "application/json"}, raise_on_unexpected_status=True)
answer = expect("sign in", post_authorize.sync(tenant, client=anonymous, body=models.AuthorizeForm(
    response_type="code", client_id=client_id, redirect_uri=redirect, scope="openid profile", state="s1",
    code_challenge=challenge, code_challenge_method="S256", username=fields["username"], password=fields["password"])),
    models.AuthorizeRedirect)
code = urllib.parse.parse_qs(urllib.parse.urlparse(answer.redirect_to).query)["code"][0]
tokens = expect("token", post_token.sync(tenant, client=anonymous, body=models.TokenForm(
    grant_type="authorization_code", code=code, redirect_uri=redirect, client_id=client_id, code_verifier=verifier)),
    models.TokenResponse)

api = AuthenticatedClient(base_url=base, token=tokens.access_token, raise_on_unexpected_status=True)
listed = expect("list", list_mini_apps.sync(tenant, client=api), models.MiniAppList)
if not listed.items:
    sys.exit("FAIL list: the demo catalog is empty")
app = expect("mini app", get_mini_app.sync(tenant, listed.items[0].id, client=api), models.MiniApp)
manifest = expect("manifest", get_mini_app_manifest.sync(tenant, app.id, app.version.version_id, client=api), models.MiniAppManifest)
names = [p.name for p in manifest.required_permissions if p.name.startswith("rakuten.miniapp.")]
consents = expect("consent PUT", put_mini_app_permissions.sync(tenant, app.id, client=api, body=models.PermissionUpdate(permissions=[
    models.PermissionUpdatePermissionsItem(name=name, status=models.ConsentStatus.ALLOWED) for name in names])), models.MiniAppPermissions)
if names and not consents.may_launch:
    sys.exit(f"FAIL consent PUT: required permissions allowed but mayLaunch is false: {consents!r}")
items = models.StorageItemsItems.from_dict({"greeting": "こんにちは", "n": "1"})
expect("storage PUT", put_mini_app_storage.sync(tenant, app.id, client=api, body=models.StorageItems(items=items)), models.StorageSize)
stored = expect("storage GET", get_mini_app_storage_item.sync(tenant, app.id, "greeting", client=api), models.StorageItem)
if stored.value != "こんにちは":
    sys.exit(f"FAIL storage GET: {stored.value!r}")
event = models.AnalyticsEvent(name="mini_app_open", mini_app_id=app.id)
result = expect("analytics", post_analytics.sync(tenant, client=api, body=models.AnalyticsBatch(events=[event])), models.AnalyticsResult)
if result.accepted != 1:
    sys.exit(f"FAIL analytics: {result!r}")
# The example integrators read in the contract resolves for the demo tenant (its link domain is seeded).
spec = yaml.safe_load((pathlib.Path(__file__).resolve().parent.parent / "OpenAPI" / "gateway.yaml").read_text())
resolve = next(op for item in spec["paths"].values() for op in item.values() if isinstance(op, dict) and op.get("operationId") == "resolveDeepLink")
example_url = next(p["example"] for p in resolve["parameters"] if p.get("name") == "url")
link = expect("deep link", resolve_deep_link.sync(tenant, client=anonymous, url_query=example_url), models.DeepLink)
if link.mini_app_id != "hello":
    sys.exit(f"FAIL deep link: {example_url} resolved to {link!r}")
print(f"python client scenario: {len(steps)} steps passed ({', '.join(steps)})")
