enum DevicesCommand { static func run(_ arguments: [String]) throws { throw AppError.runtime("devices: not yet") } }
