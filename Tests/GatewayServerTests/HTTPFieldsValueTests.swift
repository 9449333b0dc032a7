import HTTPTypes
import Testing
@testable import GatewayServer

@Suite("HTTPFields.value(of:) reads headers as the standard subscript does")
struct HTTPFieldsValueTests {
    @Test("one field, none, several (joined like the subscript), and names compared case-insensitively")
    func matchesTheSubscript() throws {
        let custom = try #require(HTTPField.Name("X-Client-Id"))
        var fields: HTTPFields = [.authorization: "Bearer abc"]
        #expect(fields.value(of: .authorization) == "Bearer abc")
        #expect(fields.value(of: custom) == nil)
        fields.append(HTTPField(name: try #require(HTTPField.Name("x-client-id")), value: "one"))
        fields.append(HTTPField(name: custom, value: "two"))
        #expect(fields.value(of: custom) == "one, two")
        #expect(fields.value(of: custom) == fields[custom])
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        #expect(fields.value(of: .cookie) == fields[.cookie])
    }
}
