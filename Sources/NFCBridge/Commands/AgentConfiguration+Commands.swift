extension AgentConfiguration {
    /// The remote commands enabled (published in `info`): all of them, `lock` only when enabled.
    package var enabledCommands: [String] {
        CommandName.allCases.filter { $0 != .lock || commands.lockEnabled }.map(\.rawValue)
    }
}
