// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendApp
import BendInstrument
import BendInput
import BendPeers
import Synchronization
import XCTest

/// `play --bluetooth` at the pad: y/n answer waiting invitations, other keys play.
final class InvitationPromptTests: XCTestCase {
    func testYAndNAnswerTheOldestInvitationAndOtherKeysReachThePad() throws {
        let prompt = InvitationPrompt()
        let answers = Mutex<[String]>([])
        prompt.connect { id, d in
            let text: String = switch d {
            case .accept: "\(id) accept"
            case .decline(let why): "\(id) decline: \(why)"
            case .ask: "\(id) ask"
            }
            answers.withLock { $0.append(text) }
        }
        let k = RemoteKeyboard(onText: { _ in XCTFail("no text lines in play") }, textLine: false, intercept: { prompt.key($0) })
        XCTAssertEqual(decodeTerminal("yn/a").filter { !k.filter($0) }, decodeTerminal("yn/a"),
                       "nothing waits: every key reaches the pad, / opens no line")
        XCTAssertNil(prompt.line)

        let phone = PeerInfo(id: PeerID(0xa1), name: "phone", address: "00:1A:7D:DA:71:13")
        let tablet = PeerInfo(id: PeerID(0xb2), name: "tablet", address: "11:22:33:44:55:66")
        prompt.offer(phone)
        prompt.offer(tablet)
        prompt.offer(phone)   // a resent HELLO does not ask twice
        XCTAssertEqual(prompt.line, "Bluetooth: 'phone' (00:1A:7D:DA:71:13) asks to play: y accepts, n declines")
        XCTAssertEqual(decodeTerminal("aYxN z").filter { !k.filter($0) }, decodeTerminal("ax z"))
        XCTAssertEqual(answers.withLock { $0 }, ["a1 accept", "b2 decline: the instrument's player declined"])
        XCTAssertNil(prompt.line)

        prompt.offer(phone)
        prompt.withdraw(phone.id)   // connected or gone meanwhile
        XCTAssertNil(prompt.line)
        XCTAssertEqual(decodeTerminal("y").filter { !k.filter($0) }, decodeTerminal("y"))
    }

    func testAdmissionAsksThePlayerOnlyForUnlistedPeers() throws {
        var a = BluetoothAdmission()
        try a.allow("00:1A:7D:DA:71:13")
        a.askPlayer = true
        guard case .accept = a.decide(PeerInfo(id: PeerID(1), name: "", address: "00:1a:7d:da:71:13")) else { return XCTFail("listed") }
        guard case .ask = a.decide(PeerInfo(id: PeerID(2), name: "", address: "AA:BB:CC:DD:EE:FF")) else { return XCTFail("unlisted: ask") }
    }
}
