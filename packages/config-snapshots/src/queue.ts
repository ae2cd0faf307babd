/**
 * A promise queue: tasks run one at a time in call order, and a failing task does not
 * stop the ones after it. Takes run through one, so ids and pruning never race.
 */
export function createSerialQueue (): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve()
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task)
    tail = run.catch(() => {})
    return run
  }
}
