import BendPeers
import Foundation

/// Who may play this instrument over Bluetooth (`play --bluetooth`): addresses in
/// `--allow`, everyone with `--accept-all`, otherwise the player answers in the terminal.
/// Without a terminal (`--no-terminal`) an unlisted peer is declined with a reason that
/// names the options.
struct BluetoothAdmission: Sendable, Equatable {
    /// Upper-case `XX:XX:XX:XX:XX:XX` addresses.
    var allowed: Set<String> = []
    var acceptAll = false
    /// Others wait for the player's answer at the pad (`.ask`) instead of being declined.
    var askPlayer = false

    /// Adds `--allow ADDR[,ADDR…]`.
    /// - Throws: `AppError.usage` naming the address that is not `XX:XX:XX:XX:XX:XX`.
    mutating func allow(_ list: String) throws {
        for part in list.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard BluetoothAddress.looksLike(part), !part.contains("@") else {
                throw AppError.usage("play: --allow '\(part)': expected Bluetooth addresses XX:XX:XX:XX:XX:XX separated by commas")
            }
            allowed.insert(part.uppercased())
        }
    }

    /// The decision for an invitation from `peer` (its address is the Bluetooth address).
    /// - Thread: the session's I/O thread.
    func decide(_ peer: PeerInfo) -> InvitationDecision {
        if acceptAll || allowed.contains(peer.address.uppercased()) { return .accept }
        if askPlayer { return .ask }
        return .decline("\(peer.address) is not allowed here (the instrument's player can add --allow \(peer.address) or --accept-all)")
    }
}
