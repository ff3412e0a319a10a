/// Miscellaneous and RF-configuration commands (UM0701-02 §7.2, §7.3.1).
extension PN532Chip {
    /// Diagnose (00h): NumTst 00 echoes the line test ("libnfc" at every open — the answer must
    /// be byte-identical), 01/02 ROM/RAM tests pass, 06 reports whether target 1 still answers.
    func diagnose(_ parameters: [UInt8]) -> PN532Outcome {
        guard let test = parameters.first else { return .syntaxError }
        switch test {
        case 0x00: return .answer(parameters)
        case 0x01, 0x02: return .answer([0x00])
        case 0x06:
            guard let target = targets.first else { return .answer([PN532Status.wrongContext.rawValue]) }
            let present = reaches(target.placed)
            return .answer([present ? 0x00 : PN532Status.timeout.rawValue])
        default: return .syntaxError
        }
    }

    /// GetFirmwareVersion (02h): IC 32h = PN532, version 1.6, support 07h (ISO 14443-A, -B, 18092).
    func getFirmwareVersion() -> PN532Outcome {
        .answer([0x32, 0x01, 0x06, 0x07])
    }

    /// GetGeneralStatus (04h): last error, field, NbTg, then Tg BrRx BrTx Type per target, SAM status.
    func getGeneralStatus() -> PN532Outcome {
        var out: [UInt8] = [lastStatus.rawValue, isFieldOn ? 0x01 : 0x00, UInt8(targets.count)]
        for target in targets {
            let (bitRate, type): (UInt8, UInt8) = target.kind == .felica ? (0x01, 0x10) : (0x00, 0x00)
            out += [target.number, bitRate, bitRate, type]
        }
        out.append(0x00)
        return .answer(out)
    }

    /// ReadRegister (06h): one byte per 16-bit address.
    func readRegister(_ parameters: [UInt8]) -> PN532Outcome {
        guard !parameters.isEmpty, parameters.count % 2 == 0 else { return .syntaxError }
        let values = stride(from: 0, to: parameters.count, by: 2).map { i in
            registers[UInt16(parameters[i]) << 8 | UInt16(parameters[i + 1])]
        }
        return .answer(values)
    }

    /// WriteRegister (08h): address-high, address-low, value triples.
    func writeRegister(_ parameters: [UInt8]) -> PN532Outcome {
        guard !parameters.isEmpty, parameters.count % 3 == 0 else { return .syntaxError }
        for i in stride(from: 0, to: parameters.count, by: 3) {
            registers[UInt16(parameters[i]) << 8 | UInt16(parameters[i + 1])] = parameters[i + 2]
        }
        return .answer([])
    }

    /// SetParameters (12h): fNADUsed, fDIDUsed, fAutomaticATR_RES, fAutomaticRATS (bit 4), …
    func setParameters(_ parameters: [UInt8]) -> PN532Outcome {
        guard parameters.count == 1 else { return .syntaxError }
        self.parameters = parameters[0]
        return .answer([])
    }

    /// SAMConfiguration (14h): Mode 1–4 [Timeout [IRQ]]. Mode 01 (normal) is all libnfc uses; it
    /// is also what takes the PN532 out of its LowVbat start-up state.
    func samConfiguration(_ parameters: [UInt8]) -> PN532Outcome {
        guard let mode = parameters.first, (0x01...0x04).contains(mode), parameters.count <= 3 else {
            return .syntaxError
        }
        return .answer([])
    }

    /// PowerDown (16h): WakeUpEnable [GenerateIRQ]. The field goes off; the next frame wakes the chip.
    func powerDown(_ parameters: [UInt8]) -> PN532Outcome {
        guard (1...2).contains(parameters.count) else { return .syntaxError }
        setField(on: false)
        return .answer([PN532Status.success.rawValue])
    }

    /// RFConfiguration (32h) items and their value lengths (UM0701-02 §7.3.1).
    static let rfConfigurationItems: [UInt8: Int] = [
        0x01: 1,  // RF field: bit 0 on, bit 1 auto RFCA
        0x02: 3,  // various timings: RFU, ATR_RES timeout, RetryTimeout
        0x04: 1,  // MaxRtyCOM
        0x05: 3,  // MxRtyATR, MxRtyPSL, MxRtyPassiveActivation
        0x0A: 11,  // analog settings 106 kbps type A
        0x0B: 8,  // analog settings 212/424 kbps
        0x0C: 3,  // analog settings type B
        0x0D: 9,  // analog settings 212/424/848 kbps ISO/IEC 14443-4
    ]

    func rfConfiguration(_ parameters: [UInt8]) -> PN532Outcome {
        guard let item = parameters.first, let length = Self.rfConfigurationItems[item],
            parameters.count == length + 1
        else { return .syntaxError }
        switch item {
        case 0x01: setField(on: parameters[1] & 0x01 != 0)
        case 0x02: retryTimeoutCode = parameters[3]
        case 0x04: maxRetriesCOM = parameters[1]
        case 0x05: maxRetriesPassiveActivation = parameters[3]
        default: break  // analog settings change nothing a virtual tag can notice
        }
        return .answer([])
    }
}
