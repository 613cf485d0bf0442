#include "edgewise/io/csv.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "edgewise/core/error.hpp"
#include "support/shared_data.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

using Rows = std::vector<std::vector<std::string>>;
using testing::argument_error_of;
using testing::dataset_csv;
using testing::missing_data_reason;
using testing::thrown_by;

CsvOptions headerless() {
  CsvOptions options;
  options.has_header = false;
  return options;
}

TEST(Csv, ReadsHeaderRowsAndLineNumbers) {
  const CsvTable table = parse_csv("smiles,y\nCCO,1.5\nc1ccccc1,-0.25\n", "mem.csv");
  EXPECT_EQ(table.source, "mem.csv");
  EXPECT_EQ(table.header, (std::vector<std::string>{"smiles", "y"}));
  EXPECT_EQ(table.rows, (Rows{{"CCO", "1.5"}, {"c1ccccc1", "-0.25"}}));
  EXPECT_EQ(table.line_numbers, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(table.num_rows(), 2u);
  EXPECT_EQ(table.num_columns(), 2u);
}

TEST(Csv, LastLineWithoutLineBreak) {
  EXPECT_EQ(parse_csv("a,b\n1,2", "t").rows, (Rows{{"1", "2"}}));
  EXPECT_EQ(parse_csv("a,b\r\n1,2\r", "t").rows, (Rows{{"1", "2"}}));
}

TEST(Csv, QuotedFieldsKeepDelimitersAndDoubledQuotes) {
  const CsvTable table = parse_csv(
      "name,smiles\n"
      "\"2,2',3,4,6-PCB\",Clc1ccc(Cl)cc1\n"
      "\"\"\"1,1,1-Trifluro-2-chloroethane\"\"\",ClCC(F)(F)F\n"
      "\"\",C\n",
      "t");
  EXPECT_EQ(table.rows, (Rows{{"2,2',3,4,6-PCB", "Clc1ccc(Cl)cc1"},
                              {"\"1,1,1-Trifluro-2-chloroethane\"", "ClCC(F)(F)F"},
                              {"", "C"}}));
}

TEST(Csv, QuoteInsideAnUnquotedFieldIsText) {
  EXPECT_EQ(parse_csv("a,b\n5\"-nucleotide,x\n", "t").rows, (Rows{{"5\"-nucleotide", "x"}}));
}

TEST(Csv, QuotedLineBreaksBelongToTheFieldAndAdvanceLineNumbers) {
  const CsvTable table = parse_csv("id,note\n1,\"two\nlines\"\n2,\"crlf\r\ninside\"\n3,x\n", "t");
  EXPECT_EQ(table.rows, (Rows{{"1", "two\nlines"}, {"2", "crlf\r\ninside"}, {"3", "x"}}));
  EXPECT_EQ(table.line_numbers, (std::vector<std::size_t>{2, 4, 6}));
}

TEST(Csv, CrlfLineEndingsAreNotPartOfFields) {
  const CsvTable table = parse_csv("a,b\r\n1,\"q\"\r\n3,\r\n", "t");
  EXPECT_EQ(table.header, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(table.rows, (Rows{{"1", "q"}, {"3", ""}}));
}

TEST(Csv, BlankLinesAndCarriageReturnLinesAreSkipped) {
  // hiv.csv's pattern: every line ends "\r\n" and is followed by an empty line.
  const CsvTable table = parse_csv("smiles,active\r\n\nCCO,0\r\n\n\r\n\r\nCCN,1\r\n\n", "t");
  EXPECT_EQ(table.rows, (Rows{{"CCO", "0"}, {"CCN", "1"}}));
  EXPECT_EQ(table.line_numbers, (std::vector<std::size_t>{3, 7}));
}

TEST(Csv, BlankLinesAreRowsWhenNotSkipped) {
  CsvOptions options;
  options.skip_blank_lines = false;
  EXPECT_EQ(parse_csv("smiles\nC\n\nN\n", "t", options).rows, (Rows{{"C"}, {""}, {"N"}}));
  const auto error = thrown_by<ParseError>([&] { parse_csv("a,b\n1,2\n\n", "t", options); });
  EXPECT_EQ(error.line(), 3u);
}

TEST(Csv, HeaderlessFileWithCommentLineSelectsColumnsByIndex) {
  // The layout of RDKit's NCI/first_5k.tpsa.csv.
  CsvOptions options = headerless();
  options.comment_prefix = "#";
  const CsvTable table = parse_csv(
      "# TPSA data calculated using Daylight tools and Ertl's contrib program tpsa.c\n"
      "CC1=CC(=O)C=CC1=O,34.14\n"
      "[O-][N+](=O)C1=CNC(=N)S1,82.78\n",
      "tpsa.csv", options);
  EXPECT_TRUE(table.header.empty());
  EXPECT_EQ(table.num_columns(), 2u);
  EXPECT_EQ(table.rows[1][table.check_column(0)], "[O-][N+](=O)C1=CNC(=N)S1");
  EXPECT_EQ(table.number(0, 1), 34.14);
  EXPECT_EQ(table.line_numbers, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(table.column_name(1), "column 1");
}

TEST(Csv, CommentLinesAnywhereAreSkippedButCommentTextInFieldsIsKept) {
  CsvOptions options;
  options.comment_prefix = "#";
  const CsvTable table = parse_csv("# top\nname,v\n#mid\nC#N,1\n", "t", options);
  EXPECT_EQ(table.header, (std::vector<std::string>{"name", "v"}));
  EXPECT_EQ(table.rows, (Rows{{"C#N", "1"}}));
  EXPECT_EQ(table.line_numbers, (std::vector<std::size_t>{4}));
}

TEST(Csv, WithoutCommentPrefixHashLinesAreData) {
  EXPECT_EQ(parse_csv("#x\n1\n", "t", headerless()).rows, (Rows{{"#x"}, {"1"}}));
}

TEST(Csv, MissingCellsAreEmptyFields) {
  const CsvTable table = parse_csv("t1,t2,t3,smiles\n0,,1,C\n,,,N\n", "t");
  EXPECT_EQ(table.rows, (Rows{{"0", "", "1", "C"}, {"", "", "", "N"}}));
  EXPECT_EQ(table.number(0, 0), 0.0);
  EXPECT_EQ(table.number(0, 1), std::nullopt);
  EXPECT_EQ(table.number(1, 2), std::nullopt);
}

TEST(Csv, TrailingSpacesAreKeptAndTrimIsExplicit) {
  const CsvTable table = parse_csv("smiles,y\nCCO ,1\n", "t");
  EXPECT_EQ(table.rows[0][0], "CCO ");
  EXPECT_EQ(trim_whitespace(table.rows[0][0]), "CCO");
  EXPECT_EQ(trim_whitespace(" \t x y\r\n"), "x y");
  EXPECT_EQ(trim_whitespace("   "), "");
  EXPECT_EQ(trim_whitespace(""), "");
}

TEST(Csv, OtherDelimiter) {
  CsvOptions options;
  options.delimiter = '\t';
  EXPECT_EQ(parse_csv("a\tb\n\"x\ty\"\t2\n", "t", options).rows, (Rows{{"x\ty", "2"}}));
}

TEST(Csv, ByteOrderMarkIsNotPartOfTheFirstColumnName) {
  EXPECT_EQ(parse_csv("\xEF\xBB\xBFsmiles,y\nC,1\n", "t").column_index("smiles"), 0u);
}

TEST(Csv, EmptyInput) {
  EXPECT_EQ(parse_csv("", "t").num_rows(), 0u);
  EXPECT_EQ(parse_csv("", "t").num_columns(), 0u);
  EXPECT_EQ(parse_csv("a,b\n", "t").num_rows(), 0u);
  EXPECT_EQ(parse_csv("a,b\n", "t").num_columns(), 2u);
  EXPECT_EQ(parse_csv("\n\n", "t", headerless()).num_rows(), 0u);
}

TEST(Csv, WrongFieldCountNamesSourceLineAndRow) {
  const auto error = thrown_by<ParseError>([] { parse_csv("a,b,c\n1,2,3\n\n4,5\n", "data.csv"); });
  EXPECT_EQ(error.file(), "data.csv");
  EXPECT_EQ(error.line(), 4u);
  EXPECT_EQ(error.text(), "4,5");
  EXPECT_EQ(error.reason(), "expected 3 fields, found 2");
  EXPECT_EQ(std::string(error.what()), "data.csv:4: expected 3 fields, found 2 ('4,5')");
}

TEST(Csv, HeaderlessRowsMustMatchTheFirstRow) {
  const auto error = thrown_by<ParseError>([] { parse_csv("1,2\n3,4,5\n", "t", headerless()); });
  EXPECT_EQ(error.line(), 2u);
  EXPECT_EQ(error.reason(), "expected 2 fields, found 3");
}

TEST(Csv, UnterminatedQuoteNamesTheLineWhereItOpened) {
  const auto error = thrown_by<ParseError>([] { parse_csv("a,b\n1,2\n3,\"open\n4,5\n6,7\n", "data.csv"); });
  EXPECT_EQ(error.file(), "data.csv");
  EXPECT_EQ(error.line(), 3u);
  EXPECT_EQ(error.text(), "3,\"open");
  EXPECT_EQ(error.reason(), "unterminated quoted field");
}

TEST(Csv, TextAfterAClosingQuoteIsAnError) {
  const auto error = thrown_by<ParseError>([] { parse_csv("a,b\n\"x\"y,1\n", "t"); });
  EXPECT_EQ(error.line(), 2u);
  EXPECT_EQ(error.reason(), "unexpected character 'y' after a closing quote");
}

TEST(Csv, ColumnLookupByName) {
  const CsvTable table = parse_csv("smiles,exp,id\nC,1,a\n", "lipo.csv");
  EXPECT_EQ(table.column_index("exp"), 1u);
  EXPECT_EQ(table.column_name(1), "exp");
  const std::string message = argument_error_of([&] { table.column_index("SMILES"); });
  EXPECT_NE(message.find("lipo.csv"), std::string::npos) << message;
  EXPECT_NE(message.find("'SMILES'"), std::string::npos) << message;
  EXPECT_NE(message.find("available columns: 'smiles', 'exp', 'id'"), std::string::npos) << message;
}

TEST(Csv, ColumnLookupErrors) {
  const CsvTable duplicated = parse_csv("y,y\n1,2\n", "dup.csv");
  EXPECT_NE(argument_error_of([&] { duplicated.column_index("y"); }).find("more than once"), std::string::npos);

  const CsvTable no_header = parse_csv("1,2\n", "raw.csv", headerless());
  EXPECT_NE(argument_error_of([&] { no_header.column_index("smiles"); }).find("raw.csv: no header row"),
            std::string::npos);

  EXPECT_EQ(no_header.check_column(1), 1u);
  const std::string message = argument_error_of([&] { no_header.check_column(2); });
  EXPECT_NE(message.find("raw.csv: column index 2 is out of range; the table has 2 columns"), std::string::npos)
      << message;
}

TEST(Csv, ParsesTextWithDisplayName) {
  const auto error = thrown_by<ParseError>([&] { parse_csv("x\n1\n\"2\n", "<stdin>"); });
  EXPECT_EQ(error.file(), "<stdin>");
  EXPECT_EQ(error.line(), 3u);
}

TEST(Csv, MissingFileIsAnError) {
  try {
    read_csv(std::filesystem::path("/nonexistent/edgewise/missing.csv"));
    FAIL() << "no exception thrown";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/edgewise/missing.csv: cannot open"), std::string::npos)
        << e.what();
  }
}

const FieldContext where{"esol.csv", 7, "y"};

TEST(ParseNumber, Values) {
  EXPECT_EQ(parse_number("1.5", where), 1.5);
  EXPECT_EQ(parse_number("-0.77", where), -0.77);
  EXPECT_EQ(parse_number("+2", where), 2.0);
  EXPECT_EQ(parse_number("1e-3", where), 1e-3);
  EXPECT_EQ(parse_number("1E3", where), 1000.0);
  EXPECT_EQ(parse_number(".5", where), 0.5);
  EXPECT_EQ(parse_number(" 3 ", where), 3.0);
  EXPECT_EQ(parse_number("4\r", where), 4.0);
}

TEST(ParseNumber, EmptyOrWhitespaceIsMissing) {
  EXPECT_EQ(parse_number("", where), std::nullopt);
  EXPECT_EQ(parse_number("  \t", where), std::nullopt);
}

TEST(ParseNumber, TextIsAnErrorNamingSourceLineColumnAndValue) {
  const auto error = thrown_by<ParseError>([] { parse_number("abc", where); });
  EXPECT_EQ(error.file(), "esol.csv");
  EXPECT_EQ(error.line(), 7u);
  EXPECT_EQ(error.text(), "abc");
  EXPECT_EQ(std::string(error.what()), "esol.csv:7: column 'y': not a number ('abc')");
  for (const char* bad : {"1.5x", "1,5", "--1", "+-1", "+", "-", "1 2", "0x10", "one", "."}) {
    EXPECT_THROW(parse_number(bad, where), ParseError) << bad;
  }
}

TEST(ParseNumber, NanAndInfinityAreRejected) {
  for (const char* bad : {"nan", "NaN", "NAN", "-nan", "inf", "-inf", "Inf", "infinity", "+inf"}) {
    const auto error = thrown_by<ParseError>([&] { parse_number(bad, where); });
    EXPECT_EQ(error.text(), bad);
    EXPECT_NE(error.reason().find("not a finite number"), std::string::npos) << error.reason();
  }
}

TEST(ParseNumber, OutOfRangeIsRejected) {
  const auto error = thrown_by<ParseError>([] { parse_number("1e999", where); });
  EXPECT_NE(error.reason().find("out of range"), std::string::npos) << error.reason();
}

TEST(ParseNumber, TableCellErrorsNameTheRowsLineAndColumn) {
  const CsvTable table = parse_csv("smiles,logS\nC,1\n\nN,n/a\n", "sol.csv");
  const auto error = thrown_by<ParseError>([&] { table.number(1, 1); });
  EXPECT_EQ(std::string(error.what()), "sol.csv:4: column 'logS': not a number ('n/a')");
}

// The number of missing cells of a numeric column; every other cell must parse.
std::size_t count_missing(const CsvTable& table, std::size_t column) {
  std::size_t missing = 0;
  for (std::size_t row = 0; row < table.num_rows(); ++row) missing += table.number(row, column) ? 0 : 1;
  return missing;
}

bool any_field_has_carriage_return(const CsvTable& table) {
  return std::ranges::any_of(table.rows, [](const auto& row) {
    return std::ranges::any_of(row, [](const std::string& f) { return f.find('\r') != std::string::npos; });
  });
}

TEST(CsvDatasets, Esol) {
  const std::filesystem::path path = dataset_csv("esol");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << missing_data_reason(path);
  const CsvTable table = read_csv(path);
  EXPECT_EQ(table.num_rows(), 1128u);
  EXPECT_EQ(table.num_columns(), 10u);
  const std::size_t smiles = table.column_index("smiles");
  EXPECT_EQ(smiles, 9u);
  const auto with_trailing_space =
      std::ranges::count_if(table.rows, [&](const auto& row) { return row[smiles].ends_with(' '); });
  EXPECT_EQ(with_trailing_space, 212);
  const std::size_t target = table.column_index("measured log solubility in mols per litre");
  EXPECT_EQ(count_missing(table, target), 0u);
  const auto quoted_with_comma =
      std::ranges::count_if(table.rows, [](const auto& row) { return row[0].find(',') != std::string::npos; });
  EXPECT_EQ(quoted_with_comma, 162);
}

TEST(CsvDatasets, Lipophilicity) {
  const std::filesystem::path path = dataset_csv("lipophilicity");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << missing_data_reason(path);
  const CsvTable table = read_csv(path);
  EXPECT_EQ(table.num_rows(), 4200u);
  EXPECT_EQ(table.header, (std::vector<std::string>{"CMPD_CHEMBLID", "exp", "smiles"}));
  EXPECT_FALSE(any_field_has_carriage_return(table));
  EXPECT_EQ(count_missing(table, table.column_index("exp")), 0u);
}

TEST(CsvDatasets, BbbpQuotedNames) {
  const std::filesystem::path path = dataset_csv("bbbp");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << missing_data_reason(path);
  const CsvTable table = read_csv(path);
  EXPECT_EQ(table.num_rows(), 2050u);
  EXPECT_EQ(table.header, (std::vector<std::string>{"num", "name", "p_np", "smiles"}));
  EXPECT_FALSE(any_field_has_carriage_return(table));
  const auto row = std::ranges::find_if(table.rows, [](const auto& r) { return r[0] == "96"; });
  ASSERT_NE(row, table.rows.end());
  EXPECT_EQ((*row)[1], "\"1,1,1-Trifluro-2-chloroethane\"");
  EXPECT_EQ((*row)[3], "ClCC(F)(F)F");
  EXPECT_EQ(count_missing(table, table.column_index("p_np")), 0u);
}

TEST(CsvDatasets, HivEmptyLinesBetweenRows) {
  const std::filesystem::path path = dataset_csv("hiv");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << missing_data_reason(path);
  const CsvTable table = read_csv(path);
  EXPECT_EQ(table.num_rows(), 41127u);
  EXPECT_EQ(table.header, (std::vector<std::string>{"smiles", "activity", "HIV_active"}));
  EXPECT_FALSE(any_field_has_carriage_return(table));
  EXPECT_EQ(table.line_numbers.front(), 3u);
  EXPECT_EQ(table.line_numbers.back(), 2u * 41127u + 1u);
  const std::size_t active = table.column_index("HIV_active");
  double positives = 0;
  for (std::size_t row = 0; row < table.num_rows(); ++row) positives += table.number(row, active).value();
  EXPECT_EQ(positives, 1443.0);
}

TEST(CsvDatasets, Tox21MissingLabels) {
  const std::filesystem::path path = dataset_csv("tox21");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << missing_data_reason(path);
  const CsvTable table = read_csv(path);
  EXPECT_EQ(table.num_rows(), 7831u);
  EXPECT_EQ(table.num_columns(), 14u);
  EXPECT_EQ(table.column_index("mol_id"), 12u);
  EXPECT_EQ(table.column_index("smiles"), 13u);
  for (std::size_t task = 0; task < 12; ++task) {
    EXPECT_GT(count_missing(table, task), 0u) << table.header[task];
  }
  EXPECT_EQ(count_missing(table, table.column_index("NR-AR")), 566u);
  EXPECT_EQ(count_missing(table, table.column_index("SR-p53")), 1057u);
}

TEST(CsvDatasets, RdkitTpsaFileWithoutHeader) {
  const std::filesystem::path path = "/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found: install the rdkit-data package";
  CsvOptions options;
  options.has_header = false;
  options.comment_prefix = "#";
  const CsvTable table = read_csv(path, options);
  EXPECT_EQ(table.num_rows(), 4999u);
  EXPECT_EQ(table.num_columns(), 2u);
  EXPECT_EQ(table.rows[0][0], "CC1=CC(=O)C=CC1=O");
  EXPECT_EQ(table.line_numbers[0], 2u);
  EXPECT_EQ(count_missing(table, 1), 0u);
}

}  // namespace
}  // namespace edgewise

namespace edgewise {
namespace {

// The streaming reader holds one 1 MB block at a time; records that straddle blocks (quoted fields
// with line breaks, CRLF endings, comments) must come out as read_csv gives them, with their lines.
TEST(CsvReader, GivesReadCsvsRowsAcrossBlockBoundaries) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("edgewise_csv_reader_" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream out(path, std::ios::binary);
    out << "\xEF\xBB\xBFsmiles,\"note\"\r\n";
    for (int i = 0; i < 200000; ++i) {
      out << "C" << std::string(static_cast<std::size_t>(i % 7), 'C') << ",";
      if (i % 5 == 0) out << "\"a, \"\"quoted\"\"\nnote " << i << "\"";
      out << (i % 3 == 0 ? "\r\n" : "\n");
      if (i % 1000 == 0) out << "# comment\n\n";
    }
  }
  CsvOptions options;
  options.comment_prefix = "#";
  const CsvTable table = read_csv(path, options);
  CsvReader reader(path, options);
  EXPECT_EQ(reader.columns().header, table.header);
  EXPECT_EQ(reader.columns().header_line, 1u);
  std::vector<std::string> fields;
  std::size_t line = 0, row = 0;
  while (reader.next(fields, line)) {
    ASSERT_LT(row, table.num_rows());
    ASSERT_EQ(fields, table.rows[row]) << "row " << row;
    ASSERT_EQ(line, table.line_numbers[row]) << "row " << row;
    ++row;
  }
  EXPECT_EQ(row, 200000u);
  EXPECT_GT(std::filesystem::file_size(path), 2u << 20) << "the file spans several blocks";
  std::filesystem::remove(path);
}

TEST(CsvReader, ReportsRaggedRowsAndAnUnterminatedQuoteWithTheirLines) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("edgewise_csv_reader_bad_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << "a,b\n1,2\n3\n";
  CsvReader ragged(path);
  std::vector<std::string> fields;
  std::size_t line = 0;
  EXPECT_TRUE(ragged.next(fields, line));
  const ParseError error = thrown_by<ParseError>([&] { ragged.next(fields, line); });
  EXPECT_EQ(error.line(), 3u);
  EXPECT_EQ(error.reason(), "expected 2 fields, found 1");

  std::ofstream(path) << "a,b\n1,\"2\n3,4\n";
  CsvReader unterminated(path);
  EXPECT_EQ(thrown_by<ParseError>([&] { unterminated.next(fields, line); }).reason(), "unterminated quoted field");
  std::filesystem::remove(path);
}

TEST(CsvTableErrors, AnEmptyFileAndAMissingColumnNameTheirPlace) {
  EXPECT_EQ(thrown_by<ParseError>([] { parse_csv("", "empty.csv").column_index("smiles"); }).reason(),
            "empty file: expected a header line naming the columns, then rows");
  EXPECT_NE(argument_error_of([] { parse_csv("# c\nx,y\n1,2\n", "t.csv", {.comment_prefix = "#"}).column_index("z"); })
                .find("t.csv:2: no column 'z'"),
            std::string::npos);
}

}  // namespace
}  // namespace edgewise
