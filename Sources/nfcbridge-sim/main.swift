import Foundation
import PN532Sim

FileHandle.standardError.write(Data("usage: nfcbridge-sim --link PATH --scenario FILE [--baud N]\n".utf8))
exit(2)
