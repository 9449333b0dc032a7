/// The hosts plain `http://` is allowed to where https is otherwise required (an issuer, a
/// push provider): loopback only, for local development, tests and fakes.
public enum LoopbackHost {
    public static func contains(_ host: String) -> Bool {
        host == "localhost" || host == "127.0.0.1" || host == "::1" || host == "[::1]"
    }
}
