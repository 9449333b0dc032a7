import Glibc
import NIOCore
import Testing
@testable import GatewayServer

@Suite("Start-up failures name their cause")
struct StartupFailureTests {
    @Test("a taken port names the address and how to choose another")
    func portInUse() {
        let message = GatewayCommand.startupFailure(
            IOError(errnoCode: EADDRINUSE, reason: "bind(descriptor:ptr:bytes:)"),
            configuration: GatewayConfiguration(host: "127.0.0.1", port: 8080))
        #expect(message.hasPrefix("cannot listen on 127.0.0.1:8080: the address is already in use."))
        #expect(message.contains("--http-port") && message.contains("GATEWAY_HTTP_PORT"))
        #expect(!message.contains("descriptor"))
    }
}
