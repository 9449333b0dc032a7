"""Prints an admin API access token for the service account that
`gatewayctl operator create NAME --service-account --json` printed (argument 2), from the
operator realm's token endpoint at the admin listener (argument 1)."""
import json
import sys
import urllib.parse
import urllib.request

base, created = sys.argv[1], json.loads(sys.argv[2])
form = urllib.parse.urlencode(
    {"grant_type": "client_credentials", "client_id": created["clientId"], "client_secret": created["clientSecret"]}
).encode()
with urllib.request.urlopen(urllib.request.Request(f"{base}/admin/oauth2/token", data=form), timeout=30) as answer:
    print(json.load(answer)["access_token"])
