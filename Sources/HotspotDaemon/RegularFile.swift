// SPDX-License-Identifier: Apache-2.0
import Connectivity

// Reading a file the root daemon trusts lives in Connectivity, shared with the profile loader
// (BuiltInHelpers), which does not depend on this module.
typealias RegularFile = Connectivity.RegularFile
typealias RegularFileError = Connectivity.RegularFileError
