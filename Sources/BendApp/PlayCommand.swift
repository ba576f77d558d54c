enum PlayCommand { static func run(_ arguments: [String]) throws { throw AppError.runtime("play: not yet") } }
