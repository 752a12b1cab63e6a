-- make report-pdf's pandoc filter: widths for the report's tables that LaTeX can set. A pipe
-- table whose rows are longer than pandoc's line gets column widths in proportion to its
-- "|---|" dashes, all equal in REPORT.md, so a column of short numbers is as wide as one of
-- sentences and headers run into each other. Here a table that does not fit the line at 10 pt
-- is set in \footnotesize with 3 pt padding, each column at least as wide as its longest word
-- and the rest of the line shared in proportion to how much more its longest cell (capped at
-- CAP characters) would need; when its longest words alone do not fit, in \scriptsize, and
-- then on a landscape page (Table 1 with its intervals). Tables that fit keep pandoc's widths.
-- Widths in characters of DejaVu Serif (digits 0.64 em): the text is 483 pt wide on A4 with
-- the report's 2 cm margins, 728 pt on a landscape page.
local PORTRAIT_PT, LANDSCAPE_PT, CHAR_PT, SMALL_CHAR_PT, TINY_CHAR_PT, PAD_PT, CAP = 483, 728, 6.4, 5.1, 3.85, 6, 40

local function length(text)
  return utf8.len(text) or #text
end

local function measure(tbl)
  local longest, word = {}, {}
  local columns = #tbl.colspecs
  for c = 1, columns do
    longest[c], word[c] = 1, 1
  end
  local function visit(row)
    for c, cell in ipairs(row.cells) do
      if c <= columns then
        local text = pandoc.utils.stringify(cell.contents)
        longest[c] = math.max(longest[c], length(text))
        for w in text:gmatch("%S+") do
          word[c] = math.max(word[c], length(w))
        end
      end
    end
  end
  for _, row in ipairs(tbl.head.rows) do
    visit(row)
  end
  for _, body in ipairs(tbl.bodies) do
    for _, row in ipairs(body.body) do
      visit(row)
    end
  end
  return longest, word
end

local function sum(list)
  local total = 0
  for _, x in ipairs(list) do
    total = total + x
  end
  return total
end

-- The settings tried in turn until the table's longest words fit: the first that does is used.
local SETTINGS = {
  { size = "footnotesize", char_pt = SMALL_CHAR_PT, page_pt = PORTRAIT_PT },
  { size = "scriptsize", char_pt = TINY_CHAR_PT, page_pt = PORTRAIT_PT },
  { size = "footnotesize", char_pt = SMALL_CHAR_PT, page_pt = LANDSCAPE_PT, landscape = true },
  { size = "scriptsize", char_pt = TINY_CHAR_PT, page_pt = LANDSCAPE_PT, landscape = true },
}

function Table(tbl)
  local longest, word = measure(tbl)
  local columns = #longest
  if sum(longest) * CHAR_PT + columns * 12 <= PORTRAIT_PT then
    return nil
  end
  local setting, available
  for _, s in ipairs(SETTINGS) do
    setting, available = s, (s.page_pt - columns * PAD_PT) / s.char_pt
    if sum(word) <= available then
      break
    end
  end
  local extra = {}
  for c = 1, columns do
    extra[c] = math.max(word[c], math.min(longest[c], CAP)) - word[c]
  end
  local room = math.max(0, available - sum(word))
  local share = sum(extra) > 0 and math.min(1, room / sum(extra)) or 0
  local total = math.max(available, sum(word))
  for c = 1, columns do
    tbl.colspecs[c] = { tbl.colspecs[c][1], 0.99 * (word[c] + share * extra[c]) / total }
  end
  local open = "\\begingroup\\" .. setting.size .. "\\setlength{\\tabcolsep}{3pt}"
  local close = "\\endgroup"
  if setting.landscape then
    open, close = "\\begin{landscape}" .. open, close .. "\\end{landscape}"
  end
  return { pandoc.RawBlock("latex", open), tbl, pandoc.RawBlock("latex", close) }
end

-- Long inline code (the compiler flags, paths, settings) as \texttt that may break at its
-- spaces and after a '/', instead of running into the margin as pandoc's unbreakable "\ ".
local SPECIAL = { ["\\"] = "\\textbackslash{}", ["{"] = "\\{", ["}"] = "\\}", ["$"] = "\\$", ["&"] = "\\&",
                  ["#"] = "\\#", ["^"] = "\\^{}", ["_"] = "\\_", ["%"] = "\\%", ["~"] = "\\~{}",
                  ["["] = "{[}", ["]"] = "{]}", ["/"] = "/\\allowbreak{}" }

function Code(code)
  if length(code.text) <= 20 then
    return nil
  end
  local text = code.text:gsub("[\\{}$&#^_%%~%[%]/]", SPECIAL)
  return pandoc.RawInline("latex", "\\texttt{" .. text .. "}")
end

-- REPORT.md writes powers and indices as HTML (10<sup>-15</sup>, k<sub>i</sub>), which the
-- LaTeX writer drops, leaving "10-15": the inlines between the tags become a Superscript or
-- Subscript.
local SCRIPTS = { ["<sup>"] = { close = "</sup>", make = pandoc.Superscript },
                  ["<sub>"] = { close = "</sub>", make = pandoc.Subscript } }

function Inlines(inlines)
  local out, i = pandoc.List(), 1
  while i <= #inlines do
    local el = inlines[i]
    local script = el.t == "RawInline" and el.format == "html" and SCRIPTS[el.text]
    local close
    if script then
      for j = i + 1, #inlines do
        if inlines[j].t == "RawInline" and inlines[j].format == "html" and inlines[j].text == script.close then
          close = j
          break
        end
      end
    end
    if close then
      local inner = pandoc.List()
      for j = i + 1, close - 1 do
        inner:insert(inlines[j])
      end
      out:insert(script.make(inner))
      i = close + 1
    else
      out:insert(el)
      i = i + 1
    end
  end
  return out
end

-- Tables are measured before their code and scripts are rewritten into raw LaTeX, which
-- pandoc.utils.stringify would count as nothing.
return { { Table = Table }, { Code = Code, Inlines = Inlines } }

