/// Types, server protocol (`APIProtocol`) and client (`Client`) generated at build time from
/// `OpenAPI/admin.yaml` (the admin listener's contract, issue 48) by the
/// swift-openapi-generator plugin. Nothing here is written by hand: change the contract.
