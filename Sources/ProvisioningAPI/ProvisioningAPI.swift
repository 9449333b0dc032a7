// Types and client generated from OpenAPI/upstreams/provisioning.yaml (the gateway's provisioning contract).
