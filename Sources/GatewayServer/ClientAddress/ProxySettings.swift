/// Who may say who the client is: the trusted proxies (`--trusted-proxies`) and whether
/// their connections begin with a PROXY protocol header (`--proxy-protocol on`).
public struct ProxySettings: Sendable, Equatable {
    public var trustedProxies: TrustedProxies
    public var proxyProtocol: Bool

    public init(trustedProxies: TrustedProxies = .init(), proxyProtocol: Bool = false) {
        self.trustedProxies = trustedProxies
        self.proxyProtocol = proxyProtocol
    }
}
