/// The console's one stylesheet (issue 49): system fonts, light and dark by
/// `prefers-color-scheme` with contrast above 4.5:1, tables that scroll inside their box so
/// no page scrolls sideways at 360 px, visible focus for keyboard use.
enum ConsoleStylesheet {
    static let text = """
        :root{color-scheme:light dark;--bg:#ffffff;--fg:#1a1a1a;--muted:#4d4d4d;--line:#c8c8c8;--accent:#0b57d0;\
        --error:#b3261e;--band:#f3f5f8}
        @media (prefers-color-scheme:dark){:root{--bg:#121417;--fg:#eceff3;--muted:#b8bec6;--line:#3a3f46;\
        --accent:#8ab4f8;--error:#f2b8b5;--band:#1c2026}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",\
        "Hiragino Sans","Noto Sans JP",sans-serif}
        a{color:var(--accent)}
        a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid var(--accent);\
        outline-offset:2px}
        .skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--bg);padding:4px}
        header{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between;\
        padding:8px 16px;border-bottom:1px solid var(--line);background:var(--band)}
        nav a{margin-right:12px;text-decoration:none;font-weight:600}
        nav a[aria-current=page]{text-decoration:underline}
        .who{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0}
        main{padding:16px;max-width:1200px}
        h1{font-size:1.5rem;margin:0 0 12px;overflow-wrap:anywhere}
        .scroll{overflow-x:auto;max-width:100%}
        table{border-collapse:collapse;min-width:100%}
        caption{text-align:left;font-weight:600;padding:4px 0}
        th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
        th{color:var(--muted);font-weight:600}
        td{overflow-wrap:anywhere}
        .error{color:var(--error)}
        .chart{width:100%;max-width:640px;height:auto;display:block}
        .chart .grid{stroke:var(--line);stroke-width:1}.chart .axis{fill:var(--muted);font-size:11px}
        .chart .opens{fill:var(--line);opacity:.6}
        .chart polyline{stroke-width:2.5}.chart .candidate{stroke:var(--accent)}.chart .stable{stroke:var(--fg)}
        .funnel .queued{fill:var(--muted)}.funnel .sent{fill:var(--accent)}.funnel .pending{fill:var(--line)}
        .funnel .failed{fill:var(--error)}.funnel .skipped{fill:var(--line);opacity:.7}
        .chart .threshold{stroke:var(--error);stroke-width:2;stroke-dasharray:6 4}
        body.framed{margin:0;padding:4px}.legend{font-size:.875rem;margin:4px 0}
        .key::before{content:"";display:inline-block;width:18px;height:0;border-top:3px solid;vertical-align:middle;\
        margin-right:4px}.key.candidate::before{border-color:var(--accent)}.key.stable::before{border-color:var(--fg)}
        .key.threshold::before{border-top:3px dashed var(--error)}
        iframe.chart-frame{border:0;width:100%;max-width:660px;height:330px}
        .notice{border-left:4px solid var(--accent);padding:4px 8px;background:var(--band)}
        dl.policy{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:4px 16px;margin:0 0 16px}
        dl.policy dt{color:var(--muted);font-weight:600}dl.policy dd{margin:0;overflow-wrap:anywhere}
        h2{font-size:1.125rem;margin:16px 0 8px}h3{font-size:1rem;margin:12px 0 4px}
        .actions{display:flex;flex-wrap:wrap;gap:12px;margin:0 0 16px}
        form.action{display:flex;flex-wrap:wrap;gap:8px;align-items:end;border:1px solid var(--line);border-radius:6px;\
        padding:8px}
        form.action label{display:flex;flex-direction:column;font-size:.875rem;color:var(--muted)}
        .muted{color:var(--muted)}
        form.filters{display:flex;flex-wrap:wrap;gap:8px 12px;align-items:end;margin:0 0 12px}
        form.filters label{display:flex;flex-direction:column;font-size:.875rem;color:var(--muted)}
        input,select,button{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);\
        border-radius:4px;padding:4px 8px;max-width:100%}
        form.send,form.settings{display:grid;grid-template-columns:minmax(0,1fr);gap:8px;max-width:640px;margin:0 0 16px}\
        form.settings input:not([type=checkbox]){width:100%;box-sizing:border-box;min-width:0}\
        form.settings code{overflow-wrap:anywhere;min-width:0}
        form.send label,form.settings label,fieldset label{display:flex;flex-direction:column;font-size:.875rem;color:var(--muted)}
        form.send label.check,form.settings label.check{flex-direction:row;gap:6px;align-items:center}
        .field-error{color:var(--error);font-size:.875rem;margin-top:-4px}
        fieldset{border:1px solid var(--line);border-radius:6px;display:grid;gap:6px;min-width:0}
        textarea{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:4px;\
        padding:4px 8px;max-width:100%}
        .devices{display:flex;flex-wrap:wrap;gap:12px}
        figure.device{margin:0;border:1px solid var(--line);border-radius:12px;padding:8px 12px;width:300px;max-width:100%;\
        background:var(--band);overflow-wrap:anywhere}
        figure.device figcaption{font-size:.75rem;color:var(--muted)}figure.device p{margin:4px 0 0}
        button{background:var(--accent);color:var(--bg);border-color:var(--accent);cursor:pointer}
        """
}
