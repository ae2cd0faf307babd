/** Stable error codes of the lab. */
export const LAB_ERROR_CODES = {
  LAB_NOT_ROOT: 'The lab needs root (network namespaces, nftables, tc)',
  LAB_MISSING_TOOL: 'A tool the lab needs (ip, nft, tc, gcc) is not installed',
  LAB_COMMAND_FAILED: 'A command that builds or runs the lab failed',
  LAB_TIMEOUT: 'Something in the lab did not happen in time',
  LAB_AGENT_FAILED: 'A viewer agent reported an error or died'
} as const
export type LabErrorCode = keyof typeof LAB_ERROR_CODES

export class LabError extends Error {
  readonly code: LabErrorCode
  constructor (code: LabErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'LabError'
    this.code = code
  }

  static notRoot (): LabError { return new LabError('LAB_NOT_ROOT', 'the network lab needs root: run it as root (namespaces, nftables and tc)') }
  static missingTool (tool: string, pkg: string): LabError { return new LabError('LAB_MISSING_TOOL', `the network lab needs '${tool}': apt-get install ${pkg}`) }
  static commandFailed (command: string, detail: string): LabError { return new LabError('LAB_COMMAND_FAILED', `${command}: ${detail}`) }
  static timeout (what: string, ms: number): LabError { return new LabError('LAB_TIMEOUT', `timed out after ${ms} ms: ${what}`) }
  static agentFailed (who: string, detail: string): LabError { return new LabError('LAB_AGENT_FAILED', `${who}: ${detail}`) }
}
