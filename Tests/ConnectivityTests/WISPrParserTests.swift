// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import Connectivity

/// Documents shaped after the reference notes' vectors (CoovaChilli redir.c, hotspotlogin.cgi,
/// RansNet 2.0 302 bodies, luci-splash bare XML, Wi2's broken tags, a line-wrapping proxy).
enum WISPrFixtures {
    static let redirect1 = """
    <HTML><!-- <?xml version="1.0" encoding="UTF-8"?>
    <WISPAccessGatewayParam xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="http://www.acmewisp.com/WISPAccessGatewayParam.xsd">
    <Redirect>
    <AccessProcedure>1.0</AccessProcedure>
    <AccessLocation>CDATA[[isocc=,cc=,ac=,network=Coova,]]</AccessLocation>
    <LocationName>CDATA[[Coova_Hotspot]]</LocationName>
    <LoginURL>https://gw.example/login?res=wispr&amp;uamip=10.1.0.1</LoginURL>
    <AbortLoginURL>https://gw.example/abort</AbortLoginURL>
    <MessageType>100</MessageType>
    <ResponseCode>0</ResponseCode>
    </Redirect>
    </WISPAccessGatewayParam>
    --></HTML>
    """

    static let redirect2 = """
    <?xml version="1.0" encoding="UTF-8"?>
    <WISPAccessGatewayParam xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="http://www.wballiance.net/wispr_2_0.xsd">
    <Redirect><MessageType>100</MessageType><ResponseCode>0</ResponseCode><VersionHigh>2.0</VersionHigh><VersionLow>1.0</VersionLow>
    <AccessProcedure>1.0</AccessProcedure><AccessLocation>ransnet</AccessLocation><LocationName>Lobby</LocationName>
    <LoginURL><![CDATA[https://portal.example/wispr?a=1&b=2]]></LoginURL></Redirect>
    </WISPAccessGatewayParam>
    """

    static func reply(_ element: String, _ type: Int, _ code: Int, _ extra: String = "") -> String {
        """
        <html><body><!--
        <?xml version="1.0" encoding="UTF-8"?>
        <WISPAccessGatewayParam xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="http://www.acmewisp.com/WISPAccessGatewayParam.xsd">
        <\(element)><MessageType>\(type)</MessageType><ResponseCode>\(code)</ResponseCode>\(extra)</\(element)>
        </WISPAccessGatewayParam>
        --></body></html>
        """
    }

    /// Wi2: unquoted xmlns:xsi, broken closing `-->ISPAccessGatewayParam>`.
    static let wi2 = """
    <html><!--
    <WISPAccessGatewayParam xmlns:xsi=http://www.w3.org/2001/XMLSchema-instance xsi:noNamespaceSchemaLocation=http://www.wi2.ne.jp/x.xsd>
    <Redirect><AccessProcedure>1.0</AccessProcedure><AccessLocation>Wi2</AccessLocation><LocationName>Wi2</LocationName>
    <LoginURL>https://service.wi2.ne.jp/wi2auth/xml/login?a=1&amp;b=2</LoginURL><MessageType>100</MessageType><ResponseCode>0</ResponseCode></Redirect>
    -->ISPAccessGatewayParam>
    </html>
    """

    /// A line-wrapped closing tag inside an element.
    static let wrapped = """
    <WISPAccessGatewayParam>
    <AuthenticationReply>
    <MessageType>120<
    /MessageType>
    <ResponseCode>50<
    /ResponseCode>
    <LogoffURL>https://gw.example/logoff?x=1&amp;y=2</
    LogoffURL>
    </AuthenticationReply></WISPAccessGatewayParam>
    """
}

@Suite struct WISPrParserTests {
    @Test func redirectInsideAnHTMLComment() throws {
        let m = try #require(WISPrParser.parse(WISPrFixtures.redirect1))
        #expect(m.kind == .redirect)
        #expect(m.messageType == 100)
        #expect(m.responseCode == 0)
        #expect(m.accessProcedure == "1.0")
        #expect(m.locationName == "Coova_Hotspot", "literal CDATA[[…]] text is unwrapped")
        #expect(m.accessLocation == "isocc=,cc=,ac=,network=Coova,")
        #expect(m.loginURL == "https://gw.example/login?res=wispr&uamip=10.1.0.1", "&amp; decoded")
        #expect(m.abortLoginURL == "https://gw.example/abort")
        #expect(!m.isVersion2)
    }

    @Test func wispr2BareXMLWithRealCDATA() throws {
        let m = try #require(WISPrParser.parse(WISPrFixtures.redirect2))
        #expect(m.isVersion2)
        #expect(m.versionLow == "1.0")
        #expect(m.loginURL == "https://portal.example/wispr?a=1&b=2")
    }

    @Test func wi2BrokenClosingTagAndUnquotedAttribute() throws {
        let m = try #require(WISPrParser.parse(WISPrFixtures.wi2))
        #expect(m.kind == .redirect)
        #expect(m.loginURL == "https://service.wi2.ne.jp/wi2auth/xml/login?a=1&b=2")
    }

    @Test func lineWrappedTags() throws {
        let m = try #require(WISPrParser.parse(WISPrFixtures.wrapped))
        #expect(m.kind == .authenticationReply)
        #expect(m.messageType == 120)
        #expect(m.responseCode == 50)
        #expect(m.logoffURL == "https://gw.example/logoff?x=1&y=2")
    }

    @Test func proxyNotification() throws {
        let m = try #require(WISPrParser.parse(WISPrFixtures.reply("Proxy", 110, 200, "<NextURL>http://gw/next?a=1&amp;b=2</NextURL><Delay>3</Delay>")))
        #expect(m.kind == .proxy)
        #expect(m.nextURL == "http://gw/next?a=1&b=2")
        #expect(m.delay == 3)
    }

    @Test(arguments: [
        ("AuthenticationReply", 120, 50), ("AuthenticationReply", 120, 100), ("AuthenticationReply", 120, 102),
        ("AuthenticationReply", 120, 105), ("AuthenticationReply", 120, 201), ("AuthenticationReply", 120, 255),
        ("AuthenticationPollReply", 140, 50), ("AuthenticationPollReply", 140, 150), ("LogoffReply", 130, 150),
        ("AbortLoginReply", 150, 151), ("EAPAuthenticationReply", 121, 50),
    ])
    func everyReplyMessage(element: String, type: Int, code: Int) throws {
        let extra = "<ReplyMessage>Text &lt;here&gt;</ReplyMessage><LoginResultsURL>https://gw/r?id=1&amp;x=2</LoginResultsURL>"
            + "<LogoffURL>https://gw/logoff</LogoffURL><StatusURL>https://gw/status</StatusURL><MaxSessionTime>3600</MaxSessionTime><Delay>2</Delay>"
        let m = try #require(WISPrParser.parse(WISPrFixtures.reply(element, type, code, extra)))
        #expect(m.kind?.rawValue == element)
        #expect(m.messageType == type)
        #expect(m.responseCode == code)
        #expect(m.replyMessage == "Text <here>")
        #expect(m.loginResultsURL == "https://gw/r?id=1&x=2")
        #expect(m.logoffURL == "https://gw/logoff")
        #expect(m.statusURL == "https://gw/status")
        #expect(m.maxSessionTime == 3600)
        #expect(m.delay == 2)
    }

    @Test func noMessageInAnOrdinaryPage() {
        #expect(WISPrParser.parse("<html><body>Hello</body></html>") == nil)
        #expect(WISPrParser.parse("") == nil)
        #expect(WISPrParser.parse("<WISPAccessGatewayParam></WISPAccessGatewayParam>") == nil)
    }

    @Test func malformedXMLDoesNotCrashAndGivesNoLoginURL() {
        let garbage = "<!-- <WISPAccessGatewayParam xmlns:xsi=><Redirect><MessageType>1&&00</Mess<<ageType><LoginURL></LoginURL>< <<<< ]]>"
        let m = WISPrParser.parse(garbage)
        #expect(m?.loginURL == nil)
    }

    @Test func entityDecoding() {
        #expect(WISPrParser.decodeEntities("a&amp;b&#38;c&#x26;d&quot;&apos;&unknown;") == "a&b&c&d\"'&unknown;")
    }
}

@Suite struct WISPrResultTests {
    let client = WISPrClient()

    @Test(arguments: [(50, "succeeded"), (100, "rejected"), (102, "radiusError"), (105, "radiusNotEnabled"), (255, "gatewayError"), (150, "unexpectedReply")])
    func replyCodesMapToOutcomes(code: Int, name: String) {
        var m = WISPrMessage()
        m.messageType = 120
        m.responseCode = code
        m.logoffURL = "https://gw/logoff"
        let r = client.result(for: m, url: "https://gw/login")
        #expect(String(describing: r.outcome).hasPrefix(name))
        if code == 50 { #expect(r.logoffURL == "https://gw/logoff") }
    }

    @Test func credentialsNeverAppearInDescriptions() async {
        let creds = WISPrCredentials(username: "alice", password: "hunter2-secret")
        #expect(!creds.description.contains("hunter2"))
        var gateway = WISPrMessage()
        gateway.loginURL = "http://gw.invalid/login"
        let r = await client.login(gateway: gateway, credentials: creds, originatingURL: "http://x/", interface: nil, dnsServers: [])
        #expect(r.outcome == .insecureLoginURL, "a password is not sent over plain http by default")
        #expect(!r.detail.contains("hunter2"))
    }

    @Test func formEncoding() {
        #expect(FormEncoding.encode("a b&c=d/é~*") == "a+b%26c%3Dd%2F%C3%A9%7E*")
        #expect(FormEncoding.body([("user name", "p&w"), ("x", "")]) == "user+name=p%26w&x=")
    }
}
