// Shell completion scripts for `ncm`, generated from the registry: commands, then each command's flags.
import { inputJsonSchema } from '../caller/projections.js'
import type { Registry } from '../caller/operation.js'

export const SHELLS = ['bash', 'zsh'] as const
export type Shell = (typeof SHELLS)[number]

export interface CompletionCommand {
  name: string
  caption: string
  flags: string[]
}

/** The binary's global flags, and which of them take a value (completion skips that value to find the command). */
export interface GlobalFlags {
  all: readonly string[]
  withValue: readonly string[]
}

/** The registry's operations as commands with their flags (from the input schema), plus the binary's own commands. */
export function completionCommands(registry: Registry, local: readonly CompletionCommand[]): CompletionCommand[] {
  const operations = registry.operations
    .filter((op) => !local.some((c) => c.name === op.name))
    .map((op) => {
      const properties = (inputJsonSchema(op) as { properties?: Record<string, unknown> }).properties ?? {}
      const flags = [...Object.keys(properties), ...Object.keys(op.downloads ?? {})].map((name) => `--${name.replaceAll('_', '-')}`)
      return { name: op.name.replaceAll('_', '-'), caption: op.caption, flags: [...flags, '--json'] }
    })
  return [...operations, ...local]
}

const shellWord = (word: string) => word.replace(/[^\w.-]/g, '')
const zshDescription = (text: string) => text.replace(/[\\':]/g, (c) => (c === ':' ? '\\:' : c === "'" ? "'\\''" : '\\\\'))

export function completionScript(shell: Shell, commands: readonly CompletionCommand[], globals: GlobalFlags): string {
  return shell === 'bash' ? bashScript(commands, globals) : zshScript(commands, globals)
}

function bashScript(commands: readonly CompletionCommand[], globals: GlobalFlags): string {
  const cases = commands.map((c) => `    ${shellWord(c.name)}) flags="${c.flags.map(shellWord).join(' ')}" ;;`).join('\n')
  return `# bash completion for ncm (generated from the operation registry): source <(npx ncm completion bash)
# Completes \`ncm …\` (an installed or linked ncm) and \`npx ncm …\`.
_ncm() {
  local cur=\${COMP_WORDS[COMP_CWORD]} command="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in
      ${globals.withValue.map(shellWord).join('|')}) ((i++)) ;;
      -*) ;;
      *) command=\${COMP_WORDS[i]}; break ;;
    esac
  done
  if [[ -z $command ]]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "${globals.all.map(shellWord).join(' ')}" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "${commands.map((c) => shellWord(c.name)).join(' ')}" -- "$cur"))
    fi
    return
  fi
  local flags=""
  case $command in
${cases}
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags --help" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o default -F _ncm ncm
# \`npx ncm …\`: the words after npx are ncm's; any other npx command completes file names as before.
_ncm_npx() {
  if ((COMP_CWORD >= 2)) && [[ \${COMP_WORDS[1]} == ncm ]]; then
    COMP_WORDS=("\${COMP_WORDS[@]:1}")
    ((COMP_CWORD--))
    _ncm
  elif ((COMP_CWORD == 1)) && [[ ncm == "\${COMP_WORDS[1]}"* ]]; then
    COMPREPLY=(ncm)
  fi
}
complete -o default -F _ncm_npx npx
`
}

function zshScript(commands: readonly CompletionCommand[], globals: GlobalFlags): string {
  const described = commands.map((c) => `    '${shellWord(c.name)}:${zshDescription(c.caption)}'`).join('\n')
  const cases = commands.map((c) => `    ${shellWord(c.name)}) flags=(${c.flags.map(shellWord).join(' ')}) ;;`).join('\n')
  return `#compdef ncm
# zsh completion for ncm and npx ncm (generated from the operation registry): source <(npx ncm completion zsh) after compinit
_ncm() {
  local -a commands flags
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    if [[ $words[CURRENT] == -* ]]; then compadd -- ${globals.all.map(shellWord).join(' ')}; else _describe 'command' commands; fi
    return
  fi
  case $words[2] in
${cases}
  esac
  if [[ $words[CURRENT] == -* ]]; then compadd -- $flags --help; else _files; fi
}
compdef _ncm ncm 2>/dev/null || true
# \`npx ncm …\`: the words after npx are ncm's.
_ncm_npx() {
  if (( CURRENT >= 3 )) && [[ $words[2] == ncm ]]; then
    shift words
    (( CURRENT-- ))
    _ncm
  elif (( CURRENT == 2 )); then
    compadd ncm
  else
    _files
  fi
}
compdef _ncm_npx npx 2>/dev/null || true
`
}
