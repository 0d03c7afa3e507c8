"""agui_notebook in marimo: ask the demo agent for a transfer, approve it on the card, and read the
answer in the same output.

    marimo edit notebooks/09_marimo.py                              # click Approve yourself
    AGUI_NOTEBOOK_POLICY=approve python notebooks/09_marimo.py      # headless, as a script
    AGUI_NOTEBOOK_POLICY=approve marimo export html notebooks/09_marimo.py -o out.html
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App()


@app.cell
def _():
    import marimo as mo

    return (mo,)


@app.cell
def _(mo):
    mo.md(
        """
        # Approve a tool call in marimo

        The demo agent answers a transfer request with a `transfer_money` call that needs your
        approval. The card shows in the output of the cell below; your click resumes the same
        AG-UI thread, and the agent's answer streams in under the card, in that same output.

        marimo handles one thing at a time, and a running cell is one of them: a click reaches
        Python only once no cell runs. So `chat.send()` returns with the card still waiting, and
        the card says so; your decision continues the run on its own.
        """
    )
    return


@app.cell
async def _():
    from agui_notebook import Agent

    agent = Agent.demo()
    chat = agent.chat()
    turn = await chat.send("Transfer $500 from 1234567890 to 0987654321")
    # the card appears here; click Approve; the answer streams in under it
    return agent, chat, turn


@app.cell
async def _(chat, mo, turn):
    # Waiting here before you decide would hold your click back, so this cell stops and says so;
    # run it again (or let AGUI_NOTEBOOK_POLICY decide headless) for the final result.
    mo.stop(
        bool(chat.thread.pending),
        mo.md("**Decide on the card above**, then run this cell again for the final result."),
    )
    result = await chat.wait()
    print("completed:", result.completed, "| decided by:", result.decided_by)
    print(result.text)
    mo.md(f"```\n{chat.audit_text()}\n```")
    return (result,)


if __name__ == "__main__":
    app.run()
