; Definitions in JavaScript sources.
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
(method_definition name: (property_identifier) @name) @definition.method
(class_declaration name: (identifier) @name) @definition.type
(field_definition property: (property_identifier) @name) @definition.field
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name))) @definition.constant)
