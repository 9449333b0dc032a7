/// Types, server protocol (`APIProtocol`) and client (`Client`) generated at build time
/// from `OpenAPI/gateway.yaml` by the swift-openapi-generator plugin. Nothing here is
/// written by hand: change the contract, not this module.
